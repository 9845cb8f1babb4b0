"""Strings of withdrawing a match loaded by mistake (dashboard/views/upload_withdraw.py)
and of each page's sign-in form (who may use the page, dashboard/access.py)."""

STRINGS: dict[str, dict[str, str]] = {
    # the upload page's withdrawal of a match loaded by mistake (jury and admins)
    "wd.title": {
        "id": "Tarik pertandingan yang salah dimuat",
        "en": "Withdraw a match loaded by mistake",
    },
    "wd.why": {
        "id": "Meja yang dimuat dengan acara, babak atau meja yang salah (atau yang tidak pernah dimainkan) keluar dari semua klasemen dan rating; semua versinya tetap di riwayat, dan pertandingan itu dapat dikembalikan di sini.",
        "en": "A table loaded under the wrong event, round or table (or never played) leaves every standing and rating; its versions stay in its history, and it can be brought back here.",
    },
    "wd.none": {
        "id": "Belum ada pertandingan dimuat di acara Anda.",
        "en": "No match is loaded in your events yet.",
    },
    "wd.event": {"id": "Acara", "en": "Event"},
    "wd.round": {"id": "Babak / sesi", "en": "Round / session"},
    "wd.table": {"id": "Meja", "en": "Table"},
    "wd.reason": {"id": "Alasan (disimpan di riwayat)", "en": "Reason (kept in the history)"},
    "wd.sure": {
        "id": "Tarik {event} babak {round} meja {table} dari klasemen dan rating",
        "en": "Withdraw {event} round {round} table {table} from the standings and ratings",
    },
    "wd.go": {"id": "Tarik pertandingan", "en": "Withdraw the match"},
    "wd.done": {
        "id": "{event} babak {round} meja {table} ditarik; riwayatnya tetap tersimpan.",
        "en": "{event} round {round} table {table} withdrawn; its history is kept.",
    },
    "wd.warnings": {"id": "Perhatikan:", "en": "Note:"},
    # round and table first: a phone cuts the end of a long event title
    "wd.match": {
        "id": "Babak {round} · meja {table} · {event}",
        "en": "Round {round} · table {table} · {event}",
    },
    "wd.back.title": {
        "id": "Kembalikan pertandingan yang ditarik",
        "en": "Bring back a withdrawn match",
    },
    "wd.back.match": {"id": "Pertandingan yang ditarik", "en": "Withdrawn match"},
    "wd.back.go": {"id": "Kembalikan pertandingan", "en": "Bring the match back"},
    # a label of its own: two fields named alike on one page are one to a screen reader
    "wd.back.reason": {
        "id": "Alasan mengembalikan (disimpan di riwayat)",
        "en": "Why it comes back (kept in the history)",
    },
    "wd.back.was": {"id": "Ditarik oleh {by}: {reason}", "en": "Withdrawn by {by}: {reason}"},
    "wd.back.done": {
        "id": "{event} babak {round} meja {table} kembali dihitung, dari baris yang tersimpan.",
        "en": "{event} round {round} table {table} counts again, from the rows kept.",
    },
    "wd.refused": {
        "id": "Pertandingan tidak dapat dikembalikan.",
        "en": "The match could not be brought back.",
    },
    # a coordinator asks the jury instead (pepet rule 24)
    "wd.ask.title": {
        "id": "Minta juri menarik pertandingan yang salah dimuat",
        "en": "Ask the jury to withdraw a match loaded by mistake",
    },
    "wd.ask.why": {
        "id": "Meja yang Anda muat dengan acara, babak atau meja yang salah (atau yang tidak pernah dimainkan): juri acara memutuskan di halaman Permintaan perubahan, dan tidak ada yang berubah sampai juri menyetujuinya. Pertandingan yang sudah ditarik dapat diminta kembali di sini, atau dengan mengunggah berkasnya lagi (keduanya menjadi permintaan koreksi).",
        "en": "A table you loaded under the wrong event, round or table (or never played): the event's jury decides on the Change requests page, and nothing changes until a jury member approves it. A withdrawn match can be asked back here, or by uploading its file again (either becomes a correction request).",
    },
    "wd.ask.reason": {
        "id": "Mengapa perlu ditarik (wajib; dibaca juri)",
        "en": "Why it should be withdrawn (required; the jury reads it)",
    },
    "wd.ask.go": {"id": "Kirim permintaan ke juri", "en": "Send the request to the jury"},
    "wd.ask.sent": {
        "id": "Permintaan {id} terkirim: juri memutuskan penarikan {event} babak {round} meja {table}. Hasil tidak berubah sampai juri menyetujuinya.",
        "en": "Request {id} sent: the jury decides whether {event} round {round} table {table} is withdrawn. Results do not change until a jury member approves it.",
    },
    "wd.ask.back.title": {
        "id": "Minta juri mengembalikan pertandingan yang ditarik",
        "en": "Ask the jury to bring back a withdrawn match",
    },
    "wd.ask.back.sent": {
        "id": "Permintaan {id} terkirim: juri memutuskan apakah {event} babak {round} meja {table} dihitung lagi, dari baris yang tersimpan. Hasil tidak berubah sampai juri menyetujuinya.",
        "en": "Request {id} sent: the jury decides whether {event} round {round} table {table} counts again, from the rows kept. Results do not change until a jury member approves it.",
    },
    # who may use each page that asks for a sign-in (the upload page's is up.signin.why)
    "signin.why.entry": {
        "id": "Input kocokan di meja hanya untuk pengguna terdaftar acara itu: koordinator, wasit, juri (`domino users add`).",
        "en": "Entering hands at the table is for the event's registered users: coordinators, referees, jury (`domino users add`).",
    },
    "signin.why.organiser": {
        "id": "Mengatur acara, mengundi meja dan mencetak lembar hanya untuk pengguna terdaftar acara itu; acara baru perlu pengguna semua acara (`domino users add`).",
        "en": "Running an event, drawing its tables and printing its sheets is for the event's registered users; a new event needs a user of every event (`domino users add`).",
    },
    "signin.why.registry": {
        "id": "Mengimpor registri pemain hanya untuk pengguna semua acara (`domino users add --event '*'`).",
        "en": "Importing the players' registry is for users of every event (`domino users add --event '*'`).",
    },
    "signin.why.requests": {
        "id": "Permintaan koreksi dan penarikan untuk koordinator yang mengirimnya dan juri acara yang memutuskannya (`domino users add --role jury`).",
        "en": "Correction and withdrawal requests are for the coordinators who send them and the event's jury, who decides them (`domino users add --role jury`).",
    },
    "signin.why.admin": {
        "id": "Halaman pengguna hanya untuk admin (`domino users add --role admin`).",
        "en": "The users page is for admins (`domino users add --role admin`).",
    },
}
