"""Strings of live screens (a result shows on every open leaderboard as it is saved)."""

STRINGS = {
    "lb.live": {
        "id": "Langsung: setiap hasil tampil begitu disimpan · terakhir {time}",
        "en": "Live: each result shows as soon as it is saved · last {time}",
    },
}
