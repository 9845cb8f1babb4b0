"""Page script: display only; see dashboard/views/event_stats.py."""

from dashboard.views.event_stats import render

render()
