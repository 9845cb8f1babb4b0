"""What ``python -m dashboard`` (so ``domino serve``) gives ``streamlit run``: Streamlit's
own app serving ``dashboard/app.py``, with :func:`dashboard.server.middleware`.

``streamlit run`` finds ``app`` here and serves it; its flags, ``STREAMLIT_*`` settings
and ``dashboard/.streamlit/config.toml`` apply as to any script.
"""

from pathlib import Path

import streamlit as st

from dashboard import server

app = st.App(Path(__file__).resolve().with_name("app.py"), middleware=server.middleware())
