"""Page script: display only; see dashboard/views/player.py."""

from dashboard.views.player import render

render()
