"""A Streamlit app for tabwire's real-app tests whose button makes the
server work before it answers: a click on "Count birds" reruns the script
on the server (the rerun request and the new page both travel over
Streamlit's WebSocket, /_stcore/stream), which sleeps 0.8 s and then
writes "Birds counted: 17". Before any click the page reads
"No birds counted yet".

Run: streamlit run tests/apps/streamlit_slow.py --server.headless true \
  --server.port PORT --server.address 127.0.0.1 \
  --browser.gatherUsageStats false --server.fileWatcherType none
Ready when http://127.0.0.1:PORT/_stcore/health answers "ok".
"""
import time

import streamlit as st

st.title("Bird count")
if st.button("Count birds"):
    time.sleep(0.8)
    st.write("Birds counted: 17")
else:
    st.write("No birds counted yet")
