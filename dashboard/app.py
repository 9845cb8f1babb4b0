"""Entry point: ``streamlit run dashboard/app.py`` (what ``domino serve`` runs)."""

from dashboard.shell import main

main()
