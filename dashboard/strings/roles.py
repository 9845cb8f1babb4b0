"""Strings of the roles, change-request and admin pages."""

STRINGS: dict[str, dict[str, str]] = {
    "nav.requests": {"id": "Permintaan perubahan", "en": "Change requests"},
    "nav.admin": {"id": "Pengguna", "en": "Users"},
    "role.coordinator": {"id": "koordinator", "en": "coordinator"},
    "role.jury": {"id": "juri", "en": "jury"},
    "role.admin": {"id": "admin", "en": "admin"},
    # --- the upload page: a coordinator's correction becomes a request ---------------------
    "rq.ask.note": {
        "id": "Ini mengoreksi pertandingan yang sudah dimuat. Sebagai koordinator, koreksi Anda dikirim ke juri acara sebagai permintaan perubahan; tidak ada yang berubah sampai juri menyetujuinya.",
        "en": "This corrects matches already loaded. As a coordinator, your correction goes to the event's jury as a change request; nothing changes until a jury member approves it.",
    },
    "rq.ask.reason": {"id": "Alasan koreksi (wajib)", "en": "Reason for the correction (required)"},
    "rq.ask.photo": {
        "id": "Foto atau pindaian catatan kertas (PNG, JPEG, WebP atau PDF; boleh kosong)",
        "en": "Photo or scan of the paper record (PNG, JPEG, WebP or PDF; optional)",
    },
    "rq.ask.send": {"id": "Kirim ke juri", "en": "Send to the jury"},
    "rq.ask.sent": {
        "id": "Permintaan perubahan {id} terkirim. Hasil tidak berubah sampai juri menyetujuinya.",
        "en": "Change request {id} sent. Results do not change until a jury member approves it.",
    },
    "rq.refused": {"id": "Tidak dapat: {message}", "en": "Not possible: {message}"},
    # --- the requests page -----------------------------------------------------------------
    "rq.title": {"id": "Permintaan perubahan", "en": "Change requests"},
    "rq.intro": {
        "id": "Koreksi koordinator atas pertandingan yang sudah dimuat, dan permintaan menarik pertandingan yang salah dimuat, menunggu di sini sampai juri acara menyetujui atau menolaknya (aturan 24).",
        "en": "Coordinators' corrections of loaded matches, and their requests to withdraw a match loaded by mistake, wait here until a jury member of the event approves or rejects them (rule 24).",
    },
    "rq.none": {
        "id": "Tidak ada permintaan yang dapat Anda lihat.",
        "en": "No requests you may see.",
    },
    "rq.pick": {"id": "Permintaan", "en": "Request"},
    "rq.label": {
        "id": "#{id} · {status} · {kind} · {events} · oleh {by}",
        "en": "#{id} · {status} · {kind} · {events} · by {by}",
    },
    "rq.label.new": {"id": "● baru · {label}", "en": "● new · {label}"},
    "rq.kind.correction": {"id": "koreksi", "en": "correction"},
    "rq.kind.withdrawal": {"id": "penarikan", "en": "withdrawal"},
    "rq.withdrawal": {
        "id": "Meminta penarikan {event} babak {round} meja {table}: bila disetujui, hasilnya keluar dari semua klasemen dan rating; semua versinya tetap di riwayat.",
        "en": "Asks to withdraw {event} round {round} table {table}: if approved, its results leave every standing and rating; its versions stay in its history.",
    },
    "rq.withdrawal.asked": {
        "id": "Meminta penarikan {event} babak {round} meja {table}.",
        "en": "Asked to withdraw {event} round {round} table {table}.",
    },
    "rq.status.pending": {"id": "menunggu", "en": "pending"},
    "rq.status.approved": {"id": "disetujui", "en": "approved"},
    "rq.status.rejected": {"id": "ditolak", "en": "rejected"},
    "rq.status.stale": {"id": "kedaluwarsa", "en": "stale"},
    "rq.status.cancelled": {"id": "dibatalkan", "en": "cancelled"},
    "rq.cancel": {"id": "Batalkan permintaan ini", "en": "Cancel this request"},
    "rq.cancel.help": {
        "id": "Menarik kembali permintaan Anda sebelum juri memutuskan; hasil tidak berubah, dan permintaan tetap terdaftar sebagai dibatalkan.",
        "en": "Takes your request back before the jury decides; results do not change, and the request stays listed as cancelled.",
    },
    "rq.cancelled": {"id": "Permintaan {id} dibatalkan.", "en": "Request {id} cancelled."},
    "rq.asked": {
        "id": "Diminta oleh **{by}** pada {at}: {reason}",
        "en": "Asked by **{by}** at {at}: {reason}",
    },
    "rq.decided": {
        "id": "Status: **{status}** oleh **{by}** pada {at}: {reason}",
        "en": "Status: **{status}** by **{by}** at {at}: {reason}",
    },
    "rq.decided.bare": {
        "id": "Status: **{status}** oleh **{by}** pada {at}",
        "en": "Status: **{status}** by **{by}** at {at}",
    },
    "rq.col.base": {"id": "Diminta atas versi", "en": "Asked against version"},
    "rq.col.applied": {"id": "Diterapkan sebagai versi", "en": "Applied as version"},
    "rq.photo": {"id": "Catatan kertas", "en": "Paper record"},
    "rq.photo.download": {"id": "Unduh {name}", "en": "Download {name}"},
    "rq.review": {
        "id": "Yang akan berubah bila disetujui (dihitung sekarang):",
        "en": "What approving would change (computed now):",
    },
    "rq.decision": {"id": "Alasan keputusan (wajib)", "en": "Reason for the decision (required)"},
    "rq.approve": {"id": "Setujui dan terapkan", "en": "Approve and apply"},
    "rq.reject": {"id": "Tolak", "en": "Reject"},
    "rq.approved": {
        "id": "Permintaan {id} disetujui dan diterapkan.",
        "en": "Request {id} approved and applied.",
    },
    "rq.rejected": {"id": "Permintaan {id} ditolak.", "en": "Request {id} rejected."},
    "rq.only_jury": {
        "id": "Hanya juri acara ini yang dapat memutuskan.",
        "en": "Only the event's jury may decide.",
    },
    # --- the admin page ----------------------------------------------------------------------
    "adm.title": {"id": "Pengguna dan peran", "en": "Users and roles"},
    "adm.only": {"id": "Halaman ini hanya untuk admin.", "en": "This page is for admins only."},
    "adm.add": {"id": "Tambah atau perbarui pengguna", "en": "Add or update a user"},
    "adm.name": {"id": "Nama", "en": "Name"},
    "adm.role": {"id": "Peran", "en": "Role"},
    "adm.events": {
        "id": "Acara (pisahkan dengan koma; * = semua)",
        "en": "Events (comma-separated; * = all)",
    },
    "adm.groups": {
        "id": "Kelompok/KG (koordinator; pisahkan dengan koma)",
        "en": "Groups/KG (coordinators; comma-separated)",
    },
    "adm.password": {
        "id": "Kata sandi (min. 8 karakter)",
        "en": "Password (at least 8 characters)",
    },
    "adm.col.events": {"id": "Acara", "en": "Events"},
    "adm.col.groups": {"id": "Kelompok", "en": "Groups"},
    "adm.col.league": {"id": "Liga", "en": "League"},
    "adm.league": {"id": "Liga kelompoknya", "en": "League of the groups"},
    "adm.league.help": {
        "id": "Kosongkan: liga yang registrinya memuat kelompok itu. Wajib bila nama kelompok ada di registri beberapa liga (KG 1 di dua kota).",
        "en": "Leave empty: the league whose registry has the group. Needed when the group's name is in several leagues' registries (KG 1 in two cities).",
    },
    "adm.col.created": {"id": "Dibuat", "en": "Created"},
    "adm.save": {"id": "Simpan", "en": "Save"},
    "adm.saved": {"id": "Tersimpan: {name}.", "en": "Saved: {name}."},
    "adm.change": {"id": "Ubah peran atau kata sandi", "en": "Change a role or a password"},
    "adm.user": {"id": "Pengguna", "en": "User"},
    "adm.set_role": {"id": "Simpan peran", "en": "Save role"},
    "adm.reset": {"id": "Atur ulang kata sandi", "en": "Reset password"},
    "adm.remove": {"id": "Hapus pengguna", "en": "Remove user"},
    "adm.removed": {"id": "Dihapus: {name}.", "en": "Removed: {name}."},
    "adm.bad": {"id": "Tidak dapat: {message}", "en": "Not possible: {message}"},
    "adm.no_event": {
        "id": "Acara “{event}” belum dimuat: haknya berlaku setelah unggahan atau Penyelenggara membuatnya. Periksa ejaannya.",
        "en": "Event “{event}” is not loaded yet: the right holds once an upload or the Organiser page creates it. Check its spelling.",
    },
    "adm.no_group": {
        "id": "Belum ada pemain registri di kelompok “{group}”: haknya mencakup pemain kelompok itu setelah registri memuatnya. Periksa ejaannya.",
        "en": "No player of the registry is in group “{group}” yet: the right covers its players once the registry has them. Check its spelling.",
    },
    "adm.no_group_league": {
        "id": "Belum ada pemain registri liga “{league}” di kelompok “{group}”: haknya mencakup pemain kelompok itu setelah registri memuatnya. Periksa ejaan dan liganya.",
        "en": "No player of league “{league}”'s registry is in group “{group}” yet: the right covers its players once the registry has them. Check its spelling and league.",
    },
}
