"""Page script: display only; see dashboard/views/upload.py."""

from dashboard.views.upload import render

render()
