"""Page script: display only; see dashboard/views/bracket.py."""

from dashboard.views.bracket import render

render()
