"""Strings of the ratings, profile and cross-table pages (Indonesian and English)."""

STRINGS: dict[str, dict[str, str]] = {
    # navigation
    "nav.ratings": {"id": "Rating", "en": "Ratings"},
    "nav.crosstable": {"id": "Tabel silang", "en": "Cross-table"},
    # rating leaderboard
    "rt.title": {"id": "Rating pemain", "en": "Player ratings"},
    "rt.none": {
        "id": "Belum ada rating: rating dihitung dari meja yang selesai.",
        "en": "No ratings yet: ratings come from complete tables.",
    },
    "rt.ruleset": {"id": "Aturan", "en": "Ruleset"},
    "rt.level": {"id": "Tingkat acara", "en": "Event level"},
    "rt.group": {"id": "Kelompok", "en": "Group"},
    "rt.period": {"id": "Periode", "en": "Period"},
    "rt.any": {"id": "Semua", "en": "All"},
    "rt.explain": {
        "id": "Rating = μ − 3σ (OpenSkill Plackett–Luce, satu tangga per aturan), dihitung "
        "dari urutan selesai di setiap meja, sesuai urutan main. Rating sementara (◔): "
        "kurang dari {n} meja.",
        "en": "Rating = μ − 3σ (OpenSkill Plackett–Luce, one ladder per ruleset), from "
        "each table's finishing order, in order of play. Provisional (◔): fewer than {n} "
        "tables.",
    },
    "rt.empty_filter": {
        "id": "Tidak ada pemain untuk pilihan ini.",
        "en": "No players for this choice.",
    },
    "rt.col.ordinal": {"id": "Rating", "en": "Rating"},
    "rt.col.mu": {"id": "μ", "en": "μ"},
    "rt.col.sigma": {"id": "σ", "en": "σ"},
    "rt.col.matches": {"id": "Meja", "en": "Tables"},
    "rt.col.provisional": {"id": "Sementara", "en": "Provisional"},
    "rt.col.last_played": {"id": "Terakhir main", "en": "Last played"},
    "rt.col.change": {"id": "Perubahan", "en": "Change"},
    "rt.what": {"id": "rating", "en": "ratings"},
    # profile
    "pf.event": {"id": "Acara", "en": "Event"},
    "pf.all_events": {"id": "Semua acara", "en": "All events"},
    "pf.event.help": {
        "id": "Pilih satu acara untuk melihat hasil pemain ini per babak, atau ketik sebagian namanya lalu tekan Enter.",
        "en": "Pick one event to see this player's results round by round, or type part of its title and press Enter.",
    },
    "pf.vs": {"id": "Bandingkan dengan", "en": "Compare with"},
    "pf.nobody": {"id": "—", "en": "—"},
    "pf.share": {
        "id": "Tautan halaman ini: [{label}]({url})",
        "en": "Link to this page: [{label}]({url})",
    },
    "pf.m.rating": {"id": "Rating ({ruleset})", "en": "Rating ({ruleset})"},
    "pf.provisional": {
        "id": "sementara: {n} dari {need} meja",
        "en": "provisional: {n} of {need} tables",
    },
    "pf.history": {"id": "Riwayat rating", "en": "Rating history"},
    "pf.history.x": {"id": "meja ke-", "en": "table no."},
    "pf.history.none": {
        "id": "Belum ada meja yang dirating.",
        "en": "No rated table yet.",
    },
    "pf.form": {"id": "Performa {n} meja terakhir", "en": "Form over the last {n} tables"},
    "pf.form.line": {
        "id": "Peringkat terakhir (terbaru dulu): {places}",
        "en": "Latest places (newest first): {places}",
    },
    "pf.rounds": {"id": "Hasil per babak: {event}", "en": "Results per round: {event}"},
    "pf.wins": {"id": "Kemenangan per kategori", "en": "Wins by category"},
    "pf.wins.none": {"id": "Belum ada kocokan menang.", "en": "No hand won yet."},
    "pf.achievements": {"id": "Prestasi", "en": "Achievements"},
    "pf.achievements.none": {"id": "Belum ada prestasi.", "en": "No achievement yet."},
    "pf.ach.first_apollo": {
        "id": "Apollo pertama: {event}, babak {round}, meja {table}, kocokan {hand}",
        "en": "First Apollo: {event}, round {round}, table {table}, hand {hand}",
    },
    "pf.ach.most_stars_season": {
        "id": "Bintang terbanyak musim {season}: {count} bintang",
        "en": "Most stars in the {season} season: {count} stars",
    },
    "pf.ach.clean_session": {
        "id": "Juara sesi tanpa ambyar: {event}, sesi {round}",
        "en": "Session won without an ambyar: {event}, session {round}",
    },
    "pf.ach.every_round_top": {
        "id": "Teratas di meja setiap babak: {event} ({count} babak)",
        "en": "First at the table in every round: {event} ({count} rounds)",
    },
    "pf.compare": {"id": "Perbandingan: {a} dan {b}", "en": "Side by side: {a} and {b}"},
    "pf.h2h": {
        "id": "Satu meja {tables} kali: {a} di depan {wa} kali, {b} {wb} kali, sama {level} kali. "
        "Poin di meja bersama: {pa} lawan {pb}.",
        "en": "Shared a table {tables} times: {a} finished ahead {wa} times, {b} {wb} times, "
        "level {level} times. Points at the shared tables: {pa} to {pb}.",
    },
    "pf.h2h.fed": {
        "id": "{a} di atas kemenangan {b}: {n} kocokan ({p} poin).",
        "en": "{a} sat above {b}'s win: {n} hands ({p} points).",
    },
    "pf.h2h.none": {"id": "Belum pernah satu meja.", "en": "Never at the same table."},
    "pf.col.ahead": {"id": "Di depan", "en": "Ahead"},
    "pf.col.total": {"id": "Total", "en": "Total"},
    "pf.col.event_rank": {"id": "Peringkat acara", "en": "Event rank"},
    "pf.col.place": {"id": "Tempat", "en": "Place"},
    # cross-table
    "ct.title": {"id": "Tabel silang", "en": "Cross-table"},
    "ct.explain": {
        "id": "Per babak: meja, poin, tempat di meja, lalu peringkat acara setelah babak itu. "
        "Klik judul kolom untuk mengurutkan.",
        "en": "Per round: table, points, place at the table, then the event rank after that "
        "round. Click a column header to sort.",
    },
    "ct.after": {"id": "Klasemen setelah babak", "en": "Standings after round"},
    "ct.what": {"id": "tabel silang", "en": "cross-table"},
    "ct.col.table": {"id": "{round} meja", "en": "{round} table"},
    "ct.col.points": {"id": "{round} poin", "en": "{round} points"},
    "ct.col.place": {"id": "{round} tempat", "en": "{round} place"},
    "ct.col.rank": {"id": "{round} peringkat", "en": "{round} rank"},
}
