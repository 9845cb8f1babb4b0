"""Every string the dashboard shows, in Indonesian (default) and English: one table.

Rulebook terms — Apollo, Ceki, Kandang, Tangkap, Biasa, Jawara, Gaple, Ambyar, Kado,
Bintang, Tutup — are the same in both languages. ``t(key, **values)`` formats a string;
an unknown key raises ``KeyError`` (the page tests would catch it).
"""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard import strings
from pipeline import settings

LANGUAGES = {"id": "Bahasa Indonesia", "en": "English"}

STRINGS: dict[str, dict[str, str]] = {
    # --- shell ---------------------------------------------------------------------------
    "app.title": {"id": "Hasil Domino", "en": "Domino results"},
    "app.not_found": {
        "id": "Alamat “/{page}” tidak menunjuk halaman mana pun; yang ditampilkan: {shown}. Halaman lain ada di menu samping ({pages}).",
        "en": "The address “/{page}” names no page; showing {shown}. The other pages are in the side menu ({pages}).",
    },
    "nav.leaderboard": {"id": "Klasemen langsung", "en": "Live leaderboard"},
    "nav.player": {"id": "Pemain", "en": "Player"},
    "nav.stats": {"id": "Statistik acara", "en": "Event statistics"},
    "nav.upload": {"id": "Unggah hasil", "en": "Upload results"},
    "side.language": {"id": "Bahasa", "en": "Language"},
    "side.signed_in": {"id": "Masuk sebagai **{name}**", "en": "Signed in as **{name}**"},
    # short: the sidebar cuts a longer link
    "side.waiting.decide": {"id": "Menunggu keputusan: {n}", "en": "Awaiting your decision: {n}"},
    "side.waiting.mine": {"id": "Permintaan Anda di juri: {n}", "en": "Yours with the jury: {n}"},
    "side.waiting.decided": {"id": "Keputusan juri baru: {n}", "en": "New jury decisions: {n}"},
    "side.sign_out": {"id": "Keluar", "en": "Sign out"},
    "side.public": {
        "id": "Hasil terbuka untuk umum. Koordinator masuk di halaman Unggah hasil.",
        "en": "Results are public. Coordinators sign in on the Upload results page.",
    },
    "app.unexpected": {
        "id": "Halaman ini berhenti karena kesalahan yang tidak dikenal ({what}). Setiap simpanan menulis satu pertandingan utuh atau tidak sama sekali, jadi tidak ada hasil yang setengah tersimpan. Muat ulang halaman; jika terulang, laporkan kepada pengelola server: rinciannya ada di log server.",
        "en": "This page stopped on an error it does not know ({what}). Every save writes a match whole or not at all, so no result is half saved. Reload the page; if it happens again, tell whoever runs the server: the details are in the server's log.",
    },
    "busy": {
        "id": "↻ memperbarui… (basis data sedang dipakai untuk memuat hasil; data terakhir ditampilkan)",
        "en": "↻ updating… (the database is busy loading results; showing the last data)",
    },
    "busy.nodata": {
        "id": "↻ Basis data sedang dipakai untuk memuat hasil. Halaman ini akan mencoba lagi sebentar lagi.",
        "en": "↻ The database is busy loading results. This page will try again in a moment.",
    },
    "no_events": {
        "id": "Belum ada hasil yang dimuat. Koordinator dapat mengunggah log kocokan di halaman Unggah hasil, atau gunakan `domino ingest`.",
        "en": "No results loaded yet. Coordinators can upload hand logs on the Upload results page, or use `domino ingest`.",
    },
    "download.csv": {"id": "CSV", "en": "CSV"},
    "download.xlsx": {"id": "XLSX", "en": "XLSX"},
    "download.label": {"id": "Unduh {what}", "en": "Download {what}"},
    "download.csv.help": {
        "id": "Unduh {what} sebagai CSV (dipisah koma, desimal titik) untuk program lain; untuk Excel pilih XLSX.",
        "en": "Download {what} as CSV (comma-separated, decimal point) for other programs; for Excel choose XLSX.",
    },
    "yes": {"id": "ya", "en": "yes"},
    "no": {"id": "tidak", "en": "no"},
    # --- leaderboard ---------------------------------------------------------------------
    "lb.title": {"id": "Klasemen langsung", "en": "Live leaderboard"},
    "lb.event": {"id": "Acara", "en": "Event"},
    "ev.search.help": {
        "id": "Daftar ini memuat acara terbaru. Acara lama: ketik sebagian kode atau namanya, lalu tekan Enter.",
        "en": "The list holds the newest events. For an older one, type part of its id or title and press Enter.",
    },
    "ev.search.none": {
        "id": "Tidak ada acara yang cocok dengan “{text}”; yang ditampilkan: {shown}.",
        "en": "No event matches “{text}”; showing {shown}.",
    },
    "ev.search.many": {
        "id": "{n} acara cocok dengan “{text}”; yang ditampilkan yang terbaru: {shown}. Pilih yang lain di daftar Acara, atau ketik lebih lengkap.",
        "en": "{n} events match “{text}”; showing the newest: {shown}. Pick another in the Event list, or type more of the name.",
    },
    "lb.round": {"id": "Babak / sesi", "en": "Round / session"},
    "lb.round.auto": {"id": "Terbaru ({round})", "en": "Newest ({round})"},
    "ui.not_there": {
        "id": "{label} “{value}” tidak ada (pilihannya: {options}); yang ditampilkan: {shown}.",
        "en": "{label} “{value}” is not there (the choices: {options}); showing {shown}.",
    },
    "lb.round.unknown": {
        "id": "{event} tidak punya babak “{round}” (babaknya: {rounds}); yang ditampilkan: {shown}.",
        "en": "{event} has no round “{round}” (its rounds: {rounds}); showing {shown}.",
    },
    "lb.bigscreen": {"id": "Layar besar", "en": "Big screen"},
    "lb.bigscreen.help": {
        "id": "Huruf besar, meja bergantian otomatis — untuk proyektor di tempat acara.",
        "en": "Large type, tables cycling by themselves — for a projector at the venue.",
    },
    "lb.tab.tables": {"id": "Meja · {round}", "en": "Tables · {round}"},
    "lb.tab.session": {"id": "Sesi {round} ★", "en": "Session {round} ★"},
    "lb.tab.event": {"id": "Klasemen acara", "en": "Event standings"},
    "lb.tab.groups": {"id": "Kelompok (KG)", "en": "Groups (KG)"},
    "lb.table": {"id": "Meja {table}", "en": "Table {table}"},
    "lb.hands_of": {"id": "{done}/{total} kocokan", "en": "{done}/{total} hands"},
    "lb.hands": {"id": "{done} kocokan", "en": "{done} hands"},
    "lb.complete": {"id": "selesai", "en": "complete"},
    "lb.in_progress": {"id": "sedang berlangsung", "en": "in progress"},
    "lb.walkover": {
        "id": "WO (walkover): pemain yang hadir lolos",
        "en": "WO (walkover): the players present advance",
    },
    "lb.tiebreak_needed": {"id": "⚖ perlu kocokan tie-break", "en": "⚖ tie-break hand needed"},
    "lb.tied": {"id": "= ada yang seri", "en": "= some players tied"},
    "lb.no_tables": {"id": "Belum ada meja di babak ini.", "en": "No tables in this round yet."},
    "lb.seating": {"id": "Tempat duduk babak {round}", "en": "Seating, round {round}"},
    "lb.seating.note": {
        "id": "Meja yang sudah diundi dan belum dimulai: cari nama Anda untuk menemukan meja dan kursi.",
        "en": "Tables drawn and not started yet: find your name for your table and chair.",
    },
    "lb.seating.waiting": {"id": "belum dimulai", "en": "not started"},
    "lb.big.seating": {
        "id": "Tempat duduk babak {round} · meja yang belum dimulai",
        "en": "Seating, round {round} · tables not started",
    },
    "lb.zone.legend": {
        "id": "Zona lolos: {n} teratas tiap meja (hijau). ✓ lolos · ● di zona lolos, pertandingan belum selesai · = seri, pertandingan belum selesai · ⚖ seri setelah pertandingan selesai, perlu tie-break",
        "en": "Qualification zone: the top {n} of each table (green). ✓ qualified · ● in the zone, match not finished · = tied, match not finished · ⚖ tied when the match is complete, tie-break needed",
    },
    "lb.star.legend": {
        "id": "★ Bintang untuk peringkat 1 sesi (yang seri masing-masing mendapat satu).",
        "en": "★ Bintang (a star) for rank 1 of the session (tied players each earn one).",
    },
    "lb.mark.qualified": {"id": "✓ lolos", "en": "✓ qualified"},
    "lb.mark.zone": {"id": "● zona lolos", "en": "● in the zone"},
    "lb.mark.tiebreak": {"id": "⚖ tie-break", "en": "⚖ tie-break"},
    "lb.mark.tied": {"id": "= seri", "en": "= tied"},
    "lb.mark.walkover": {"id": "✓ WO", "en": "✓ WO"},
    "lb.mark.place": {"id": "◆ Peringkat {n}", "en": "◆ Place {n}"},
    "lb.final.legend": {
        "id": "Final: peringkat di meja final adalah podium (◆). ⚖ seri setelah pertandingan selesai, perlu tie-break.",
        "en": "The final: the places at the final table are the podium (◆). ⚖ tied when the match is complete, tie-break needed.",
    },
    "lb.big.table_of": {"id": "Meja {table} · {i} dari {n}", "en": "Table {table} · {i} of {n}"},
    "lb.big.session": {"id": "Klasemen sesi {round}", "en": "Session {round} standings"},
    "lb.session.partial": {
        "id": "Sesi {round} masih berjalan: {done} dari {total} meja masuk, klasemen sementara.",
        "en": "Session {round} is in progress: {done} of {total} tables in, standings so far.",
    },
    "lb.big.event": {"id": "Klasemen acara (10 besar)", "en": "Event standings (top 10)"},
    "lb.big.rows": {"id": "{first}–{last} dari {n}", "en": "{first}–{last} of {n}"},
    "lb.event.order": {
        "id": "Urutan: babak terjauh yang dicapai, lalu peringkat di meja pada babak itu, lalu total poin.",
        "en": "Order: the furthest round reached, then the rank at the table in that round, then total points.",
    },
    "lb.big.exit": {"id": "Keluar dari layar besar", "en": "Leave big screen"},
    "lb.what.tables": {"id": "klasemen meja {round}", "en": "table standings {round}"},
    "lb.what.session": {"id": "klasemen sesi {round}", "en": "session standings {round}"},
    "lb.what.event": {"id": "klasemen acara", "en": "event standings"},
    "lb.what.groups": {"id": "klasemen kelompok", "en": "group standings"},
    "lb.what.all_tables": {"id": "klasemen semua meja", "en": "standings of every table"},
    "lb.all_tables": {
        "id": "Klasemen setiap meja di semua babak/sesi acara ini:",
        "en": "Standings of every table in every round of this event:",
    },
    # --- upload --------------------------------------------------------------------------
    "up.title": {"id": "Unggah hasil", "en": "Upload results"},
    "up.signin.title": {"id": "Masuk koordinator", "en": "Coordinator sign-in"},
    "up.signin.why": {
        "id": "Mengunggah dan mengoreksi hasil hanya untuk koordinator dan wasit yang terdaftar (`domino users add`).",
        "en": "Uploading and correcting results is for registered coordinators and referees (`domino users add`).",
    },
    "up.signin.name": {"id": "Nama", "en": "Name"},
    "up.signin.password": {"id": "Kata sandi atau token", "en": "Password or token"},
    "up.signin.submit": {"id": "Masuk", "en": "Sign in"},
    "up.signin.bad": {"id": "Nama atau kata sandi salah.", "en": "Wrong name or password."},
    "up.signin.locked": {
        "id": "Terlalu banyak percobaan gagal. Coba lagi dalam {seconds} detik.",
        "en": "Too many failed attempts. Try again in {seconds} seconds.",
    },
    "up.rights": {"id": "Anda dapat menulis ke: {events}", "en": "You may write to: {events}"},
    "up.rights.all": {"id": "semua acara", "en": "every event"},
    "up.templates": {"id": "Templat log kocokan kosong", "en": "Blank hand-log templates"},
    "up.templates.help": {
        "id": "Satu baris per kocokan. Di XLSX kolom kartu berformat teks agar Excel tidak mengubah 5-3 menjadi tanggal.",
        "en": "One row per hand. In the XLSX the tile columns are formatted as text so Excel does not turn 5-3 into a date.",
    },
    "up.template.button": {"id": "{ruleset} · {fmt}", "en": "{ruleset} · {fmt}"},
    "up.files": {
        "id": "Berkas log kocokan (boleh beberapa, atau satu .zip berisi berkas-berkas itu)",
        "en": "Hand-log files (one or more, or a .zip of them)",
    },
    "up.files.limit": {
        "id": "Seret berkas ke kotak di bawah atau tekan Pilih berkas · {kinds}, paling besar {mb} MB per berkas.",
        "en": "Drag files onto the box below or press Choose files · {kinds}, at most {mb} MB per file.",
    },
    "up.browse": {"id": "Pilih berkas", "en": "Choose files"},
    "word.or": {"id": "atau", "en": "or"},
    "up.event": {
        "id": "Acara (untuk baris tanpa kolom acara)",
        "en": "Event (for rows without an event)",
    },
    "up.ruleset": {
        "id": "Aturan (untuk acara baru yang berkasnya tidak menyebutkannya)",
        "en": "Ruleset (for a new event whose file does not name it)",
    },
    "up.ruleset.none": {"id": "— dari berkas —", "en": "— from the file —"},
    "up.reason": {"id": "Alasan koreksi", "en": "Reason for the correction"},
    "up.reason.help": {
        "id": "Wajib bila berkas mengubah atau menghapus kocokan yang sudah dimuat.",
        "en": "Required when a file changes or drops hands already loaded.",
    },
    "up.preview": {
        "id": "Pratinjau — belum ada yang disimpan",
        "en": "Preview — nothing is saved yet",
    },
    "up.file_rejected": {"id": "✗ {file}: {message}", "en": "✗ {file}: {message}"},
    "up.event.unused": {
        "id": "Acara “{value}” tidak dipakai untuk baris mana pun: setiap baris berkas ini sudah menyebut acaranya.",
        "en": "The event “{value}” is used for no row: every row of these files names its event.",
    },
    "up.ruleset.unused": {
        "id": "Aturan “{value}” tidak dipakai untuk baris mana pun: setiap baris berkas ini sudah menyebut aturannya.",
        "en": "The ruleset “{value}” is used for no row: every row of these files names its ruleset.",
    },
    "up.file_rejected.more": {
        "id": "✗ dan {n} berkas lain ditolak utuh: lihat Masalah di bawah.",
        "en": "✗ and {n} more files refused whole: see Problems below.",
    },
    "up.rows": {"id": "Baris {file}", "en": "Rows of {file}"},
    "up.rows.some": {
        "id": "Menampilkan {shown} dari {total} baris (baris bermasalah lebih dulu).",
        "en": "Showing {shown} of {total} rows (rows with problems first).",
    },
    "up.severity.error": {"id": "galat", "en": "error"},
    "up.severity.warning": {"id": "peringatan", "en": "warning"},
    "up.problems": {
        "id": "Masalah ({errors} galat, {warnings} peringatan)",
        "en": "Problems ({errors} errors, {warnings} warnings)",
    },
    "up.no_problems": {"id": "Tidak ada masalah ditemukan.", "en": "No problems found."},
    "up.cells.legend": {
        "id": "Sel merah: galat (pertandingannya tidak dimuat) · sel kuning: peringatan (tetap dimuat).",
        "en": "Red cells: errors (that match is not loaded) · yellow cells: warnings (loaded anyway).",
    },
    "up.matches": {"id": "Pertandingan", "en": "Matches"},
    "up.new_events": {
        "id": "Menyimpan ini membuat {n} acara baru: {events}. Jika salah satunya acara yang sudah ada dengan id salah ketik, perbaiki kolom acara di berkasnya sebelum menyimpan.",
        "en": "Saving this creates {n} new event(s): {events}. If one of them is an existing event with its id mistyped, fix the event column in the file before saving.",
    },
    "up.new_events.more": {"id": "dan {n} lainnya", "en": "and {n} more"},
    "rq.warnings": {"id": "Peringatan bila disetujui:", "en": "Warnings if approved:"},
    "up.status.new": {"id": "baru", "en": "new"},
    "up.status.update": {"id": "tambahan kocokan", "en": "update"},
    "up.status.correction": {"id": "koreksi", "en": "correction"},
    "up.status.unchanged": {"id": "tidak berubah", "en": "unchanged"},
    "up.status.rejected": {"id": "ditolak", "en": "rejected"},
    "up.status.needs_reason": {"id": "koreksi — perlu alasan", "en": "correction — needs a reason"},
    "up.outcome.needs_reason": {
        "id": "mengubah kocokan versi {version} yang sudah dimuat; tulis alasan koreksi di bawah, dekat tombol Simpan",
        "en": "changes hands of the loaded version {version}; write the reason for the correction below, by the Save button",
    },
    "up.log.done": {"id": "selesai", "en": "done"},
    "up.log.rejected": {"id": "berkas ditolak", "en": "file rejected"},
    "up.log.interrupted": {"id": "terputus", "en": "interrupted"},
    "up.log.withdrawn": {"id": "(pertandingan ditarik)", "en": "(match withdrawn)"},
    "up.log.deleted": {"id": "(acara dihapus)", "en": "(event deleted)"},
    "up.points": {"id": "Poin yang akan didapat", "en": "Points each match would get"},
    "up.match": {
        "id": "{event} · {round} · meja {table} · {status}",
        "en": "{event} · {round} · table {table} · {status}",
    },
    "up.diff": {
        "id": "Perbedaan dengan versi yang dimuat: {event} {round} meja {table}",
        "en": "Difference from the loaded version: {event} {round} table {table}",
    },
    "up.diff.caption": {
        "id": "Per kocokan: nilai yang dimuat (v{version}) dan nilai baru.",
        "en": "Hand by hand: the loaded value (v{version}) and the new one.",
    },
    "up.diff.points": {
        "id": "Poin dan peringkat tiap pemain: versi yang dimuat (v{version}) → setelah koreksi.",
        "en": "Each player's points and rank: the loaded version (v{version}) → after the correction.",
    },
    # a withdrawal request (pipeline/change_requests.py): what leaves the standings
    "up.diff.gone": {
        "id": "Yang keluar bila ditarik: {event} {round} meja {table}",
        "en": "What leaves if withdrawn: {event} {round} table {table}",
    },
    "up.diff.points.gone": {
        "id": "Poin dan peringkat tiap pemain: versi yang dimuat (v{version}) → setelah ditarik.",
        "en": "Each player's points and rank: the loaded version (v{version}) → after the withdrawal.",
    },
    "up.diff.hands.gone": {
        "id": "Semua {hands} kocokannya keluar dari klasemen dan rating; semuanya tetap tersimpan di riwayat.",
        "en": "All {hands} of its hands leave the standings and ratings; every one stays in the history.",
    },
    # a withdrawn match brought back (its file again, or the rows kept)
    "up.diff.back": {
        "id": "Yang kembali dihitung: {event} {round} meja {table}",
        "en": "What counts again: {event} {round} table {table}",
    },
    "up.diff.points.back": {
        "id": "Poin dan peringkat tiap pemain: versi yang ditarik (v{version}) → setelah dikembalikan.",
        "en": "Each player's points and rank: the withdrawn version (v{version}) → once brought back.",
    },
    "up.diff.hands.back": {
        "id": "Semua {hands} kocokannya kembali masuk klasemen dan rating.",
        "en": "All {hands} of its hands count again in the standings and ratings.",
    },
    "up.diff.dropped": {"id": "(kocokan dihapus)", "en": "(hand dropped)"},
    "up.diff.added": {"id": "(kocokan baru)", "en": "(new hand)"},
    "up.needs_reason": {
        "id": "Berkas ini mengoreksi kocokan yang sudah dimuat. Tulis alasannya di kotak Alasan koreksi di bawah ini sebelum menyimpan.",
        "en": "This file corrects hands already loaded. Write the reason in the Reason for the correction box below before saving.",
    },
    "up.forbidden": {
        "id": "Unggahan ditolak seluruhnya: Anda tidak berhak menulis ke {events}. Tidak ada yang disimpan.",
        "en": "The whole upload is refused: you may not write to {events}. Nothing was saved.",
    },
    "up.nothing": {
        "id": "Tidak ada pertandingan untuk disimpan.",
        "en": "There is no match to save.",
    },
    "up.confirm": {"id": "Simpan {n} pertandingan", "en": "Save {n} match(es)"},
    "up.saved": {
        "id": "Tersimpan: {loaded} pertandingan ({new} baru, {update} tambahan, {correction} koreksi), {unchanged} tidak berubah, {rejected} ditolak.",
        "en": "Saved: {loaded} match(es) ({new} new, {update} updated, {correction} corrected), {unchanged} unchanged, {rejected} rejected.",
    },
    "up.eligibility": {
        "id": "Peringatan kelayakan (tidak ada yang ditolak karenanya):",
        "en": "Eligibility warnings (nothing was refused for them):",
    },
    "up.eligibility.preview": {
        "id": "Peringatan kelayakan bila disimpan (tidak ada yang akan ditolak karenanya):",
        "en": "Eligibility warnings if saved (nothing will be refused for them):",
    },
    "up.eligibility.more": {"id": "… dan {n} lagi.", "en": "… and {n} more."},
    "up.undated.fix": {
        "id": "Bila dimainkan pada hari lain, isi tanggalnya di halaman Penyelenggara.",
        "en": "If it was played on another day, set its date on the Organiser page.",
    },
    "up.changed_meanwhile": {
        "id": "Data berubah sejak pratinjau (ada unggahan lain). Periksa pratinjau baru lalu simpan lagi.",
        "en": "The data changed since the preview (another load). Check the new preview, then save again.",
    },
    "up.busy": {
        "id": "Basis data sedang dipakai (mis. `domino ingest`). Coba lagi sebentar lagi; tidak ada yang disimpan.",
        "en": "The database is busy (e.g. `domino ingest`). Try again in a moment; nothing was saved.",
    },
    "up.not_allowed": {
        "id": "Tidak diizinkan: {message}. Tidak ada yang disimpan.",
        "en": "Not allowed: {message}. Nothing was saved.",
    },
    "up.history": {"id": "Riwayat unggahan", "en": "Ingest history"},
    # --- player --------------------------------------------------------------------------
    "pl.title": {"id": "Pemain", "en": "Player"},
    "pl.choose": {"id": "Pilih pemain", "en": "Choose a player"},
    "pl.none": {"id": "Belum ada pemain.", "en": "No players yet."},
    "pl.group": {"id": "Kelompok: {group}", "en": "Group: {group}"},
    "pl.m.events": {"id": "Acara", "en": "Events"},
    "pl.m.matches": {"id": "Pertandingan", "en": "Matches"},
    "pl.m.hands": {"id": "Kocokan", "en": "Hands"},
    "pl.m.points": {"id": "Poin", "en": "Points"},
    "pl.m.pph": {"id": "Poin per kocokan", "en": "Points per hand"},
    "pl.m.wins": {"id": "Kocokan menang", "en": "Hands won"},
    "pl.events": {"id": "Acara yang diikuti", "en": "Events played"},
    "pl.categories": {"id": "Hasil per kategori", "en": "Results by category"},
    "pl.fed": {"id": "Di atas pemenang", "en": "Above a winner"},
    "pl.fed.summary": {
        "id": "{times} kali menjadi pemain di atas pemenang (kehilangan {points} poin). Paling sering memberi kepada: **{winner}** ({n} kali).",
        "en": "{times} times the player above a winner (losing {points} points). Fed most: **{winner}** ({n} times).",
    },
    "pl.fed.none": {
        "id": "Belum pernah menjadi pemain di atas pemenang.",
        "en": "Never the player above a winner so far.",
    },
    "pl.chairs": {"id": "Hasil per kursi", "en": "Results by chair"},
    "pl.timeline": {"id": "Poin dari waktu ke waktu", "en": "Points over time"},
    "pl.timeline.x": {"id": "kocokan ke-", "en": "hand no."},
    "pl.timeline.y": {"id": "poin kumulatif (per acara)", "en": "cumulative points (per event)"},
    "pl.matches": {"id": "Pertandingan", "en": "Matches"},
    "pl.search.help": {
        "id": "Daftar ini memuat pemain yang paling banyak bermain. Pemain lain: ketik sebagian namanya, lalu tekan Enter.",
        "en": "The list holds the players who played most. For another, type part of their name and press Enter.",
    },
    "pl.search.none": {
        "id": "Tidak ada pemain yang cocok dengan “{text}”; yang ditampilkan: {shown}.",
        "en": "No player matches “{text}”; showing {shown}.",
    },
    "pl.search.many": {
        "id": "{n} pemain cocok dengan “{text}”; yang ditampilkan: {shown}. Pilih yang lain di daftar, atau ketik lebih lengkap.",
        "en": "{n} players match “{text}”; showing {shown}. Pick another in the list, or type more of the name.",
    },
    "pl.tab.overview": {"id": "Ringkasan", "en": "Overview"},
    "pl.tab.hands": {"id": "Kocokan", "en": "Hands"},
    "pl.tab.matches": {"id": "Pertandingan", "en": "Matches"},
    # --- event statistics ----------------------------------------------------------------
    "st.title": {"id": "Statistik acara", "en": "Event statistics"},
    "st.none": {
        "id": "Belum ada hasil untuk acara ini: statistiknya muncul setelah pertandingan pertama disimpan.",
        "en": "No results for this event yet: its statistics appear once its first match is saved.",
    },
    "ct.none": {
        "id": "Belum ada hasil untuk acara ini: tabel silangnya muncul setelah pertandingan pertama disimpan.",
        "en": "No results for this event yet: its cross-table appears once its first match is saved.",
    },
    "st.m.rounds": {"id": "Babak/sesi", "en": "Rounds/sessions"},
    "st.m.matches": {"id": "Pertandingan", "en": "Matches"},
    "st.m.hands": {"id": "Kocokan dimainkan", "en": "Hands played"},
    "st.m.walkovers": {"id": "WO", "en": "Walkovers"},
    "st.m.hands.help": {
        "id": "Kocokan dimainkan: setiap kocokan pertandingan yang dimuat, termasuk kocokan tie-break. WO (walkover) bukan kocokan; dihitung sendiri. Jumlah ini sama di setiap tabel halaman ini.",
        "en": "Hands played: every hand of the loaded matches, tie-break hands included. A walkover is not a hand; it is counted apart. Every table on this page adds up to this number.",
    },
    "st.endings": {"id": "Bagaimana kocokan berakhir", "en": "How hands ended"},
    "st.categories": {"id": "Kategori per kursi", "en": "Categories per seat"},
    "st.pips": {"id": "Sisa biji di tangan", "en": "Pips left in hand"},
    "st.pips.x": {"id": "sisa biji", "en": "pips left"},
    "st.pips.none": {"id": "Tidak ada sisa biji yang dicatat.", "en": "No pips recorded."},
    "st.points": {"id": "Sebaran poin", "en": "Points distributions"},
    "st.points.hand": {"id": "Poin per kocokan (kursi)", "en": "Points per hand (seat)"},
    "st.points.match": {
        "id": "Total poin per pertandingan (pemain)",
        "en": "Match totals (player)",
    },
    "st.rounds": {"id": "Ringkasan per babak/sesi", "en": "Per-round summary"},
    "st.tables": {"id": "Ringkasan per meja", "en": "Per-table summary"},
    "st.groups": {"id": "Kelompok (KG)", "en": "Groups (KG)"},
    "st.tab.hands": {"id": "Kocokan", "en": "Hands"},
    "st.tab.points": {"id": "Poin", "en": "Points"},
    "st.tab.rounds": {"id": "Babak & meja", "en": "Rounds & tables"},
    "st.tab.groups": {"id": "Kelompok", "en": "Groups"},
    "st.groups.none": {
        "id": "Belum ada kelompok (impor daftar pemain: `domino players import`).",
        "en": "No groups yet (import the registry: `domino players import`).",
    },
    "st.point_table": {"id": "Tabel poin ({ruleset})", "en": "Point table ({ruleset})"},
    "st.point_table.organiser": {
        "id": "Tabel poin ini adalah **pengaturan penyelenggara**, bukan bagian dari buku aturan (tabel aslinya hilang). Nilai saat ini:",
        "en": "This point table is the **organiser's setting**, not part of the rulebook (the original's table is missing). Current values:",
    },
    "st.point_table.default": {
        "id": "Penyelenggara belum mengubah nilai bawaan.",
        "en": "The organiser has not changed the default values.",
    },
    "st.point_table.custom": {
        "id": "Nilai ditetapkan oleh penyelenggara.",
        "en": "The values were set by the organiser.",
    },
    "st.point_table.rulebook": {
        "id": "Nilai dari aturan: {title}.",
        "en": "Values from the ruleset: {title}.",
    },
}

#: Column headers as shown (exports keep the contract's column names).
COLUMNS: dict[str, dict[str, str]] = {
    "event": {"id": "Acara", "en": "Event"},
    "ruleset": {"id": "Aturan", "en": "Ruleset"},
    "round": {"id": "Babak", "en": "Round"},
    "table": {"id": "Meja", "en": "Table"},
    "hand": {"id": "Kocokan", "en": "Hand"},
    "player": {"id": "Pemain", "en": "Player"},
    "points": {"id": "Poin", "en": "Points"},
    "rank": {"id": "Peringkat", "en": "Rank"},
    "qualified": {"id": "Lolos", "en": "Qualified"},
    "needs_tiebreak": {"id": "Perlu tie-break", "en": "Needs tie-break"},
    "tiebreak_points": {"id": "Poin tie-break", "en": "Tie-break points"},
    "hands": {"id": "Kocokan", "en": "Hands"},
    "match_hands": {"id": "Kocokan meja", "en": "Match hands"},
    "complete": {"id": "Selesai", "en": "Complete"},
    "walkover": {"id": "WO", "en": "WO"},
    "wins": {"id": "Menang", "en": "Wins"},
    "star": {"id": "Bintang", "en": "Bintang"},
    "stars": {"id": "Bintang", "en": "Bintang"},
    "jawara_gaple": {"id": "Jawara 1 + Gaple", "en": "Jawara 1 + Gaple"},
    "round_reached": {"id": "Babak terjauh", "en": "Round reached"},
    "table_rank": {"id": "Peringkat di meja", "en": "Place at table"},
    "group": {"id": "Kelompok", "en": "Group"},
    "players": {"id": "Pemain", "en": "Players"},
    "reserves": {"id": "Cadangan", "en": "Reserves"},
    "replaces": {"id": "Menggantikan", "en": "Replaces"},
    "consent": {"id": "Persetujuan", "en": "Consent"},
    "mark": {"id": "Zona", "en": "Zone"},
    "category": {"id": "Kategori", "en": "Category"},
    "seats": {"id": "Kursi", "en": "Seats"},
    "share": {"id": "Porsi", "en": "Share"},
    "ending": {"id": "Akhir", "en": "Ending"},
    "chair": {"id": "Kursi", "en": "Chair"},
    "points_per_hand": {"id": "Poin/kocokan", "en": "Points/hand"},
    "matches": {"id": "Pertandingan", "en": "Matches"},
    "winner": {"id": "Pemenang", "en": "Winner"},
    "loser": {"id": "Kalah", "en": "Loser"},
    "times": {"id": "Kali", "en": "Times"},
    "points_lost": {"id": "Poin hilang", "en": "Points lost"},
    "categories": {"id": "Kategori", "en": "Categories"},
    "leader": {"id": "Teratas", "en": "Leader"},
    "top_points": {"id": "Poin tertinggi", "en": "Top points"},
    "bottom_points": {"id": "Poin terendah", "en": "Bottom points"},
    "version": {"id": "Versi", "en": "Version"},
    "loaded_at": {"id": "Dimuat", "en": "Loaded"},
    "tables": {"id": "Meja", "en": "Tables"},
    "walkovers": {"id": "WO", "en": "WO"},
    "common_ending": {"id": "Akhir tersering", "en": "Most common ending"},
    "file": {"id": "Berkas", "en": "File"},
    "line": {"id": "Baris", "en": "Line"},
    "column": {"id": "Kolom", "en": "Column"},
    "code": {"id": "Kode", "en": "Code"},
    "points_change": {"id": "Poin", "en": "Points"},
    "rank_change": {"id": "Peringkat", "en": "Rank"},
    "severity": {"id": "Tingkat", "en": "Severity"},
    "message": {"id": "Pesan", "en": "Message"},
    "status": {"id": "Status", "en": "Status"},
    "field": {"id": "Kolom", "en": "Field"},
    "loaded": {"id": "Dimuat", "en": "Loaded"},
    "new": {"id": "Baru", "en": "New"},
    "ingest_id": {"id": "No.", "en": "No."},
    "rows": {"id": "Baris", "en": "Rows"},
    "matches_loaded": {"id": "Dimuat", "en": "Loaded"},
    "matches_unchanged": {"id": "Tak berubah", "en": "Unchanged"},
    "matches_rejected": {"id": "Ditolak", "en": "Rejected"},
    "loaded_by": {"id": "Oleh", "en": "By"},
    "started_at": {"id": "Mulai", "en": "Started"},
    "finished_at": {"id": "Selesai", "en": "Finished"},
    "reason": {"id": "Alasan", "en": "Reason"},
    "value": {"id": "Sisa biji", "en": "Pips left"},
    "sha256": {"id": "SHA-256", "en": "SHA-256"},
}

#: Labels of the codes the rulesets use for categories, endings and point-table rows:
#: the rulebook's terms stay (Apollo, Ceki, Kandang, Tangkap, Jawara, Gaple, Ambyar, Kado,
#: Tutup); the project's own words are translated.
CATEGORIES: dict[str, dict[str, str]] = {
    # unhas
    "apollo": {"id": "Apollo", "en": "Apollo"},
    "ceki": {"id": "Ceki", "en": "Ceki"},
    "kandang": {"id": "Kandang", "en": "Kandang"},
    "biasa": {"id": "Menang biasa", "en": "Menang biasa"},
    "tangkap": {"id": "Tangkap kandang", "en": "Tangkap kandang"},
    "tangkap_lower": {"id": "Tangkap kandang, lebih rendah", "en": "Tangkap kandang, lower"},
    "tangkap_equal": {"id": "Tangkap kandang, sama", "en": "Tangkap kandang, equal"},
    "all_doubles": {
        "id": "Balak semua (menang biasa)",
        "en": "All doubles dealt (menang biasa)",
    },
    "wo": {"id": "WO (walkover)", "en": "WO (walkover)"},
    "above": {"id": "Di atas pemenang", "en": "Above the winner"},
    "caught": {"id": "Tertangkap (kandang)", "en": "Caught (kandang)"},
    # pepet
    "out": {"id": "Habis (keluar)", "en": "Out (went out)"},
    "locked": {"id": "Kunci (terkunci)", "en": "Locked"},
    "tutup": {"id": "Tutup", "en": "Tutup"},
    "jawara1": {"id": "Jawara 1", "en": "Jawara 1"},
    "jawara2": {"id": "Jawara 2", "en": "Jawara 2"},
    "jawara3": {"id": "Jawara 3", "en": "Jawara 3"},
    "gaple": {"id": "Gaple", "en": "Gaple"},
    "ambyar": {"id": "Ambyar", "en": "Ambyar"},
    "ambyar1": {"id": "Ambyar 1 (mengunci)", "en": "Ambyar 1 (locking)"},
    "ambyar2": {"id": "Ambyar 2 (menyebabkan tutup)", "en": "Ambyar 2 (causing a tutup)"},
    "kado": {"id": "Kado", "en": "Kado"},
    "-": {"id": "Lainnya", "en": "Other"},
}

_twice = STRINGS.keys() & (_feature_strings := strings.collect()).keys()
if _twice:
    raise KeyError(f"dashboard/strings repeats keys of dashboard/i18n.py: {sorted(_twice)}")
STRINGS.update(_feature_strings)

LANG_KEY = "lang"  # the sidebar widget's key: the language lives in each session's state


def default_language() -> str:
    try:
        return str(settings.get("language"))  # one of LANGUAGES: the setting takes no other
    except settings.SettingError:  # the app says so in place of its pages (dashboard/shell.py)
        return "id"


def language() -> str:
    """This session's language (the sidebar switch), else the ``language`` setting."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return default_language()
    lang = st.session_state.get(LANG_KEY)
    return lang if lang in LANGUAGES else default_language()


def t(key: str, lang: str | None = None, **values: object) -> str:
    text = STRINGS[key][lang or language()]
    return text.format(**values) if values else text


def column(name: str, lang: str | None = None) -> str:
    entry = COLUMNS.get(name)
    return entry[lang or language()] if entry else name


def category(code: str, lang: str | None = None) -> str:
    entry = CATEGORIES.get(code)
    return entry[lang or language()] if entry else code


#: The decimal mark each language writes (Indonesian: a comma, ``7,70``).
DECIMAL_MARK = {"id": ",", "en": "."}


def decimal(text: str, lang: str | None = None) -> str:
    """A number's text (``7.70``, ``-3.29``) as the session's language writes it: with a
    decimal comma in Indonesian. Only for text that is a number: a label keeps its dots."""
    return text.replace(".", DECIMAL_MARK[lang or language()])
