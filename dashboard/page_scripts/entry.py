"""Page script: display only; see dashboard/views/entry.py."""

from dashboard.views.entry import render

render()
