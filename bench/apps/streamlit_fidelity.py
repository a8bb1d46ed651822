"""A small Streamlit app for bench/fidelity.py: a form (select box, text
input, slider, submit button), a button outside it and a dataframe (drawn
on a canvas by Streamlit's data grid).

Run: streamlit run bench/apps/streamlit_fidelity.py --server.headless true \
  --server.port PORT --server.address 127.0.0.1 \
  --browser.gatherUsageStats false --server.fileWatcherType none
Ready when http://127.0.0.1:PORT/_stcore/health answers "ok"; the page
then draws itself over a websocket.
"""
import pandas as pd
import streamlit as st

st.title("Tide pool survey")
st.write("Record what you found in the pools at low tide.")

with st.form("survey"):
    pool = st.selectbox("Pool", ["North rocks", "Harbour wall", "Sandy cove"])
    observer = st.text_input("Observer")
    count = st.slider("Anemones counted", 0, 50, 12)
    sent = st.form_submit_button("Submit")
if sent:
    st.success(f"Saved: {count} anemones at {pool} by {observer or 'nobody'}")

if st.button("Clear the log"):
    st.info("The log is empty.")

st.subheader("Last surveys")
st.dataframe(pd.DataFrame({
    "pool": ["North rocks", "Harbour wall", "Sandy cove", "North rocks"],
    "anemones": [14, 3, 0, 9],
    "crabs": [5, 11, 2, 7],
}))
