"""Page script: display only; see dashboard/views/ratings.py."""

from dashboard.views.ratings import render

render()
