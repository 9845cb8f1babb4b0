"""The app's script: what ``domino serve`` serves (``python -m dashboard``, through
:mod:`dashboard.asgi`); ``streamlit run dashboard/app.py`` serves it too."""

from dashboard.shell import main

main()
