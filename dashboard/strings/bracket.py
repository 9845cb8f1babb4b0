"""Strings of the road to the final (dashboard/views/bracket.py) and of the leaderboard's
"standings after round N"."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.bracket": {"id": "Jalan ke final", "en": "Road to the final"},
    "br.title": {"id": "Jalan ke final", "en": "The road to the final"},
    "br.event": {"id": "Acara", "en": "Event"},
    "br.podium": {"id": "Podium", "en": "Podium"},
    "br.podium.provisional": {
        "id": "Sementara: meja final masih dimainkan.",
        "en": "Provisional: the final table is still being played.",
    },
    "br.podium.provisional.league": {
        "id": "Sementara: klasemen sejauh ini, acara belum selesai.",
        "en": "Provisional: the standings so far; the event is not over.",
    },
    "br.podium.none": {
        "id": "Belum ada meja final (babak terakhir punya lebih dari satu meja).",
        "en": "No final table yet (the last round has more than one table).",
    },
    "br.podium.open": {
        "id": "Belum ada meja final: babak {round} baru punya satu meja, dan belum ada undian "
        "yang menetapkan babak itu hanya satu meja (meja lain mungkin masih menyusul).",
        "en": "No final table yet: round {round} has one table so far, and no draw says it "
        "stays the only one (other tables may still be loaded).",
    },
    "br.place.cup": {"id": "Peringkat {n}", "en": "Place {n}"},
    "br.place.league": {"id": "Juara {n}", "en": "Juara {n}"},
    "br.round": {"id": "Babak {round}", "en": "Round {round}"},
    "br.table": {"id": "Meja {table}", "en": "Table {table}"},
    "br.tb": {"id": "TB", "en": "TB"},
    "br.tb.note": {
        "id": "TB: poin kocokan penentuan (tie-break) yang memecah seri di meja itu.",
        "en": "TB: points of the tie-break hands that broke a tie at that table.",
    },
    "br.to": {"id": "→ {round} meja {table}", "en": "→ {round} table {table}"},
    "br.outcome.advanced": {"id": "lolos", "en": "through"},
    "br.outcome.qualified": {"id": "lolos", "en": "qualified"},
    "br.outcome.eliminated": {"id": "gugur", "en": "out"},
    "br.outcome.playing": {"id": "masih main", "en": "playing"},
    "br.outcome.drawn": {"id": "diundi", "en": "drawn"},
    "br.outcome.moved": {"id": "lanjut", "en": "next"},
    "br.outcome.played": {"id": "selesai", "en": "played"},
    "br.player": {"id": "Pemain", "en": "Player"},
    "br.follow": {"id": "Ikuti pemain", "en": "Follow a player"},
    "br.follow.none": {"id": "(semua)", "en": "(everyone)"},
    "br.empty": {"id": "Belum ada meja di acara ini.", "en": "No table in this event yet."},
    "lb.after": {
        "id": "Klasemen acara setelah babak {round} (hanya babak sampai {round}).",
        "en": "Event standings after round {round} (only the rounds up to {round}).",
    },
}
