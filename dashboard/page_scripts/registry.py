"""Page script: display only; see dashboard/views/registry.py."""

from dashboard.views.registry import render

render()
