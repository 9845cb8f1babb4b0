"""Page script: display only; see dashboard/views/requests.py."""

from dashboard.views.requests import render

render()
