"""The smallest Streamlit pages, for ``bench/floor.py``: a title, then (``?what=``) a
four-row table, or a small chart drawn by Streamlit's Vega-Lite (as the dashboard's are).
Nothing of this project's code runs here."""

import streamlit as st

what = st.query_params.get("what", "title")
st.title("Hello")
if what == "table":
    st.table({"rank": [1, 2, 3, 4], "player": ["A", "B", "C", "D"], "points": [10, 8, 6, 4]})
elif what == "vega":
    st.line_chart({"x": list(range(30)), "y": [i * i for i in range(30)]}, x="x", y="y")
