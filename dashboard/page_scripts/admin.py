"""Page script: display only; see dashboard/views/admin.py."""

from dashboard.views.admin import render

render()
