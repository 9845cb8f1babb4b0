"""Page script: display only; see dashboard/views/leaderboard.py."""

from dashboard.views.leaderboard import render

render()
