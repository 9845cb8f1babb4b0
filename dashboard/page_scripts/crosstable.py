"""Page script: display only; see dashboard/views/crosstable.py."""

from dashboard.views.crosstable import render

render()
