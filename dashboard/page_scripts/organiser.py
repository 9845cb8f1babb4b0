"""Page script: display only; see dashboard/views/organiser.py."""

from dashboard.views.organiser import render

render()
