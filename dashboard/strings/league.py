"""Strings of the league features: the registry import page, advance rules, reserves."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.registry": {"id": "Registri pemain", "en": "Player registry"},
    "reg.title": {"id": "Registri pemain", "en": "Player registry"},
    "reg.intro": {
        "id": "Impor registri ke dalam liga. Kolom: Pemain (atau Nama Pemain), Kelompok, dan bila ada Kota, Anggota Sejak, Tanggal Lahir, Kewarganegaraan, Cadangan Untuk, Alias; judul bahasa Inggris (player, group, …) juga dibaca. Yang mengubah acara yang sudah dimuat ditampilkan dulu dan perlu alasan.",
        "en": "Import a registry into a league. Columns: player, group, and where known city, member_since, birth_date, citizenship, reserve_for, aliases; Indonesian headers (Pemain, Nama Pemain, Kelompok, …) are read too. One that changes loaded events is shown first and needs a reason.",
    },
    "reg.no_rights": {
        "id": "Hanya koordinator untuk semua acara yang dapat mengimpor registri.",
        "en": "Only a coordinator of every event can import a registry.",
    },
    "reg.file": {"id": "Berkas registri", "en": "Registry file"},
    "reg.league": {"id": "Liga", "en": "League"},
    "reg.check": {"id": "Periksa", "en": "Check"},
    "reg.refused": {
        "id": "Impor ditolak seluruhnya; tidak ada yang diubah:",
        "en": "The import is refused whole; nothing was changed:",
    },
    "reg.unreadable": {
        "id": "Berkas tidak dapat dibaca: {why}",
        "en": "The file cannot be read: {why}",
    },
    "reg.added": {"id": "Pemain baru: {n}", "en": "New players: {n}"},
    "reg.changes": {
        "id": "Impor ini akan mengubah acara yang sudah dimuat:",
        "en": "This import would change loaded events:",
    },
    "reg.nothing": {
        "id": "Impor ini tidak mengubah acara yang sudah dimuat.",
        "en": "This import changes nothing in loaded events.",
    },
    "reg.reason": {"id": "Alasan (wajib)", "en": "Reason (required)"},
    "reg.confirm": {"id": "Terapkan perubahan", "en": "Apply the changes"},
    "reg.apply": {"id": "Impor", "en": "Import"},
    "reg.done": {
        "id": "Diimpor: {players} pemain dan {aliases} alias ke liga {league}.",
        "en": "Imported {players} players and {aliases} aliases into league {league}.",
    },
    "reg.changed": {
        "id": "Data berubah sejak pemeriksaan; periksa perbedaan yang baru lalu konfirmasi lagi.",
        "en": "The data changed since the check; read the new diff and confirm again.",
    },
    "reg.outside": {
        "id": "{n} acara yang dimainkan pemain liga ini ada di liga tanpa daftar pemain, jadi tanpa kelompok (KG): {events}. Pindahkan ke liga ini di bawah.",
        "en": "{n} event(s) this league's players played are in a league without a registry, so without groups (KG): {events}. Move them into this league below.",
    },
    "reg.move": {
        "id": "Pindahkan acara ke liga {league}",
        "en": "Move events into league {league}",
    },
    "reg.move.events": {
        "id": "Acara (kelompok dan pemain cadangannya lalu dibaca dari daftar pemain liga ini)",
        "en": "Events (their groups and reserves are then read from this league's registry)",
    },
    "reg.move.placeholder": {"id": "Pilih acara", "en": "Choose events"},
    "reg.move.changes": {
        "id": "Pemindahan ini akan mengubah klasemen yang sudah dimuat:",
        "en": "This move would change loaded standings:",
    },
    "reg.move.nothing": {
        "id": "Pemindahan ini tidak mengubah klasemen yang sudah dimuat.",
        "en": "This move changes no loaded standings.",
    },
    "reg.move.apply": {"id": "Pindahkan {n} acara", "en": "Move {n} event(s)"},
    "reg.move.done": {
        "id": "{n} acara dipindahkan ke liga {league}.",
        "en": "{n} event(s) moved into league {league}.",
    },
    "lg.advance": {"id": "Lolos ke tingkat berikut: {rule}", "en": "Advance: {rule}"},
    "lg.advance.rule": {
        "id": "{top} teratas dari {source} → {target} ({n} pemain)",
        "en": "the top {top} of {source} → {target} ({n} players)",
    },
    "lg.advance.rule.per_group": {
        "id": "{top} teratas tiap kelompok dari {source} → {target} ({n} pemain)",
        "en": "the top {top} of each group of {source} → {target} ({n} players)",
    },
    "lg.reserve_for": {"id": "Pemain cadangan untuk {group}", "en": "Reserve for {group}"},
    "lg.replaced": {
        "id": "Menggantikan {member}: {event}, {round} meja {table}",
        "en": "Replaced {member}: {event}, {round} table {table}",
    },
    "lg.replaced.nobody": {
        "id": "Bermain sebagai cadangan (tanpa catatan siapa yang digantikan): {event}, {round} meja {table}",
        "en": "Played as a reserve (no record of whom for): {event}, {round} table {table}",
    },
}
