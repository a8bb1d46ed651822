"""A small Streamlit form for tabwire's real-app tests: a select box, a
text input, a slider and a button that writes the order.

Run: streamlit run tests/apps/streamlit_form.py --server.headless true \
  --server.port PORT --server.address 127.0.0.1 \
  --browser.gatherUsageStats false --server.fileWatcherType none
Ready when http://127.0.0.1:PORT/_stcore/health answers "ok".
"""
import streamlit as st

st.title("Order form")
fruit = st.selectbox("Fruit", ["Apple", "Banana", "Cherry"])
name = st.text_input("Name")
count = st.slider("Count", 0, 10, 3)
if st.button("Submit"):
    st.success(f"Order: {count} x {fruit} for {name or 'nobody'}")
