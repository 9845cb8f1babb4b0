"""Strings of the organiser page (events, rosters, draws)."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.organiser": {"id": "Penyelenggara", "en": "Organiser"},
    "org.title": {"id": "Penyelenggaraan acara", "en": "Running an event"},
    "org.why": {
        "id": "Buat atau ubah acara, atur urutan babak, unggah daftar peserta dan undi meja.",
        "en": "Create or edit an event, set the round order, upload the roster and draw the tables.",
    },
    "org.event": {"id": "Acara", "en": "Event"},
    "org.new": {"id": "+ Acara baru", "en": "+ New event"},
    "org.none": {
        "id": "Akun ini belum boleh mengelola acara mana pun. Minta admin menambahkan acara Anda (`domino users add`).",
        "en": "This account may not run any event yet. Ask the admin to add your events (`domino users add`).",
    },
    "org.details": {"id": "Data acara", "en": "Event details"},
    "org.id": {"id": "Kode acara (tanpa spasi)", "en": "Event id (no spaces)"},
    "org.ruleset": {"id": "Aturan", "en": "Ruleset"},
    "org.title_field": {"id": "Nama acara", "en": "Title"},
    "org.date": {"id": "Tanggal", "en": "Date"},
    "org.venue": {"id": "Tempat", "en": "Venue"},
    "org.level": {"id": "Tingkat", "en": "Level"},
    "org.level.none": {"id": "(belum ditentukan)", "en": "(not set)"},
    "org.league": {"id": "Liga", "en": "League"},
    "org.league.help": {
        "id": "Daftar pemain liga ini menentukan kelompok (KG) dan pemain cadangan acara. "
        "Impor daftar pemain liga baru di halaman Registri pemain.",
        "en": "This league's registry gives the event its groups (KG) and reserves. "
        "Import a new league's registry on the Player registry page.",
    },
    "org.league.fixed": {
        "id": "Acara ini sudah punya hasil: pindahkan liganya di halaman Registri pemain "
        "(atau domino league set), yang lebih dulu menunjukkan perubahan klasemennya.",
        "en": "This event has results: move it on the Player registry page (or with domino "
        "league set), which shows what its standings would change first.",
    },
    "org.save": {"id": "Simpan acara", "en": "Save event"},
    "org.saved": {"id": "Acara {event} disimpan.", "en": "Event {event} saved."},
    # deleting an event made by mistake (pipeline/events.py, delete)
    "org.delete": {
        "id": "Hapus acara yang dibuat karena salah",
        "en": "Delete an event made by mistake",
    },
    "org.delete.why": {
        "id": "Untuk acara dengan id salah ketik: dapat dihapus bila tidak ada pertandingannya yang masih dihitung (tarik dulu di halaman Unggah hasil), tanpa undian, daftar peserta, meja yang sedang diinput, permintaan yang menunggu, atau pengguna yang haknya menyebutnya. Basis data disalin dulu, dan log unggahan menyimpan siapa, kapan dan mengapa.",
        "en": "For an event with a mistyped id: it can be deleted when none of its matches still counts (withdraw them first on the upload page) and it has no draw, roster, table open for entry, waiting request or user whose rights name it. The database is copied first, and the ingest log keeps who, when and why.",
    },
    "org.delete.reason": {
        "id": "Alasan (disimpan di log unggahan)",
        "en": "Reason (kept in the ingest log)",
    },
    "org.delete.sure": {"id": "Hapus acara {event}", "en": "Delete event {event}"},
    "org.delete.go": {"id": "Hapus acara", "en": "Delete the event"},
    "org.delete.done": {"id": "Acara {event} dihapus.", "en": "Event {event} deleted."},
    "org.no_id": {"id": "Isi kode acara.", "en": "Fill in the event id."},
    "org.rounds": {"id": "Urutan babak", "en": "Round order"},
    "org.rounds.help": {
        "id": "Babak dipisah koma, babak pertama lebih dulu: R1, R2, Semifinal, Final",
        "en": "Rounds separated by commas, first round first: R1, R2, Semifinal, Final",
    },
    "org.rounds.save": {"id": "Simpan urutan", "en": "Save order"},
    "org.rounds.saved": {"id": "Urutan babak disimpan.", "en": "Round order saved."},
    "org.roster": {"id": "Daftar peserta", "en": "Roster"},
    "org.roster.file": {
        "id": "Berkas dengan kolom Pemain atau Nama (dan Kelompok bila ada; untuk pemain "
        "cadangan: Ganti, Persetujuan)",
        "en": "A file with a player column, or Pemain, Nama (and group, or Kelompok, where there "
        "is one; for a reserve: replaces, consent)",
    },
    "org.roster.save": {"id": "Pakai daftar ini", "en": "Use this roster"},
    "org.roster.clear.sure": {
        "id": "Daftar ini dibuat di acara yang salah: kosongkan",
        "en": "This roster was set on the wrong event: empty it",
    },
    "org.roster.clear": {"id": "Kosongkan daftar peserta", "en": "Empty the roster"},
    "org.roster.cleared": {"id": "{n} peserta dihapus.", "en": "{n} entrant(s) removed."},
    "org.roster.saved": {"id": "{n} peserta disimpan.", "en": "{n} entrant(s) saved."},
    "org.roster.warned": {
        "id": "Peringatan tentang daftar peserta (semua peserta tetap disimpan):",
        "en": "Warnings about the roster (every entrant was still saved):",
    },
    "org.roster.count": {"id": "{n} peserta", "en": "{n} entrant(s)"},
    "org.draw": {"id": "Undian meja", "en": "Draw"},
    "org.draw.round": {"id": "Babak yang diundi", "en": "Round to draw"},
    "org.draw.seed": {
        "id": "Seed (kosongkan untuk acak)",
        "en": "Seed (leave empty for a random one)",
    },
    "org.draw.reason": {
        "id": "Alasan undian ulang (wajib bila babak sudah diundi)",
        "en": "Reason for a redraw (needed when the round is already drawn)",
    },
    "org.draw.button": {"id": "Undi babak ini", "en": "Draw this round"},
    "org.draw.running": {
        "id": "Mengundi meja… (roster besar: beberapa detik)",
        "en": "Drawing the tables… (a large roster: a few seconds)",
    },
    "org.draw.done": {
        "id": "Babak {round} diundi dengan seed {seed}.",
        "en": "Round {round} drawn with seed {seed}.",
    },
    "org.draw.bad_seed": {
        "id": "Seed harus bilangan bulat 0 atau lebih.",
        "en": "The seed must be a whole number, 0 or more.",
    },
    "org.current": {"id": "Undian saat ini", "en": "Current draw"},
    "org.current.none": {"id": "Belum ada babak yang diundi.", "en": "No round is drawn yet."},
    "org.current.seed": {
        "id": "Babak {round} · seed {seed} · diundi {at}",
        "en": "Round {round} · seed {seed} · drawn {at}",
    },
    "org.history": {"id": "Riwayat undian", "en": "Draw history"},
    "org.cancel": {
        "id": "Batalkan undian babak {round} yang dibuat karena salah",
        "en": "Cancel the draw of round {round} made by mistake",
    },
    "org.cancel.why": {
        "id": "Untuk undian di acara yang salah atau dengan nama babak yang salah ketik, selama "
        "belum ada meja babak itu yang dimuat atau diinput. Tempat duduknya hilang dari layar; "
        "undiannya tetap tercatat di riwayat. Untuk mengganti susunan meja, undi ulang saja.",
        "en": "For a draw in the wrong event or under a mistyped round, while no table of "
        "that round is loaded or being entered. Its seating leaves the screens; the draw "
        "stays in the history. To change the seating instead, draw the round again.",
    },
    "org.cancel.reason": {"id": "Alasan pembatalan", "en": "Reason for cancelling"},
    "org.cancel.sure": {
        "id": "Ya, batalkan undian babak {round}",
        "en": "Yes, cancel the draw of round {round}",
    },
    "org.cancel.button": {"id": "Batalkan undian", "en": "Cancel the draw"},
    "org.cancel.done": {
        "id": "Undian babak {round} dibatalkan.",
        "en": "The draw of round {round} is cancelled.",
    },
    "org.sheets.pdf": {"id": "PDF untuk dicetak", "en": "PDF to print"},
    "org.sheets.pdf.help": {
        "id": "Satu halaman per meja: nama pemain di setiap kursi per kocokan, kotak hasil, dan tanda tangan wasit serta pemain.",
        "en": "A page per table: the player in every chair for every hand, boxes for the results, and signature lines for the referee and the players.",
    },
    "org.sheets.seating": {"id": "Daftar meja (PDF)", "en": "Seating list (PDF)"},
    "org.sheets.seating.help": {
        "id": "Untuk papan pengumuman: setiap pemain menurut abjad dengan meja dan kursinya, lalu "
        "setiap meja dengan pemainnya.",
        "en": "For the notice board: every player in alphabetical order with their table and "
        "chair, then every table with its players.",
    },
    "org.sheets.zip": {"id": "Lembar isian (.zip)", "en": "Sheets to fill in (.zip)"},
    "org.sheets.zip.help": {
        "id": "Untuk setiap meja, lembar XLSX dan CSV berisi nama pemain di setiap kursi per kocokan. Wasit mengisi hasilnya, lalu berkas itu diunggah apa adanya, satu per satu atau semuanya dalam satu .zip (lembar yang belum diisi di samping lembar yang sudah diisi dilewati).",
        "en": "For every table, an XLSX and a CSV sheet with the player in every chair for every hand. The referee fills in the results, and the file is uploaded as it is, one by one or all in one .zip (a sheet not filled in beside a filled-in one of its table is skipped).",
    },
    "org.col.table": {"id": "Meja", "en": "Table"},
    "org.col.chair": {"id": "Kursi", "en": "Chair"},
    "org.col.player": {"id": "Pemain", "en": "Player"},
    "org.col.round": {"id": "Babak", "en": "Round"},
    "org.col.seed": {"id": "Seed", "en": "Seed"},
    "org.col.drawn_at": {"id": "Waktu", "en": "When"},
    "org.col.reason": {"id": "Alasan", "en": "Reason"},
    "org.col.current": {"id": "Berlaku", "en": "Current"},
    "org.col.cancelled": {"id": "Dibatalkan", "en": "Cancelled"},
    "org.col.tables_drawn": {"id": "Meja diundi", "en": "Tables drawn"},
    "org.col.tables_loaded": {"id": "Meja dimuat", "en": "Loaded"},
    "org.col.tables_complete": {"id": "Selesai", "en": "Complete"},
    "org.col.tiebreaks_owed": {"id": "Menunggu tie-break", "en": "Tie-break owed"},
    "org.stale": {
        "id": "Undian tidak lagi sesuai hasil:",
        "en": "A draw no longer follows the results:",
    },
    "org.status": {"id": "Jalannya acara", "en": "Where the event stands"},
    "org.results.round": {"id": "Hasil babak", "en": "Results of round"},
    "org.results.pdf": {
        "id": "Hasil untuk papan pengumuman (PDF)",
        "en": "Results for the notice board (PDF)",
    },
    "org.results.pdf.help": {
        "id": "Semua meja babak ini: peringkat, poin, poin tie-break, dan siapa lolos ke meja "
        "mana (atau gugur). Ditandai sementara selama masih ada meja yang belum selesai.",
        "en": "Every table of the round: places, points, tie-break points, and who goes "
        "through to which table (or is out). Marked provisional while a table is not "
        "finished.",
    },
    "org.status.help": {
        "id": "Per babak: meja yang diundi, dimuat, selesai, dan yang masih menunggu kocokan "
        "penentuan (tie-break). Babak berikutnya baru dapat diundi bila semua meja selesai "
        "dan tidak ada tie-break yang tertunda.",
        "en": "Round by round: the tables drawn, loaded, complete, and those still owing a "
        "tie-break hand. The next round can be drawn once every table is complete and no "
        "tie-break is owed.",
    },
}
