"""A Solara app for tabwire's real-app tests. Solara renders ipywidgets
(Vuetify) in the page and keeps them in step with a kernel on the server
over one WebSocket (/jupyter/api/kernels/.../channels): the click is a
widget message up it, the server works for 0.8 s, and the new text comes
back down it as a widget state update.

- a button "Count nests": after 0.8 s the text below it reads
  "Result: 7 nests counted" (before any click: "Result: nothing counted");
  a later click adds 7 more ("Result: 14 nests counted", ...).
- a text field "Observer" and a button "Sign": after 0.8 s the text reads
  "Signed by <observer>" ("Signed by nobody" when the field is empty).

Needs solara==1.58.2 with solara-assets==1.58.2, so that the server has
every front-end file itself (newer Solara fetches them from a public CDN).
Run (no telemetry, no version check, no browser):
  SOLARA_TELEMETRY_MIXPANEL_ENABLE=False python3 -m solara run \
    tests/apps/solara_slow.py --host 127.0.0.1 --port PORT \
    --production --no-open --no-check-version
Ready when /readyz answers 200 (the app is at /; its widgets show about
2 s after the page is opened, once a kernel has started for it).
"""
import time

import solara

nests = solara.reactive(0)
observer = solara.reactive("")
signed = solara.reactive("Not signed")


def count():
    time.sleep(0.8)
    nests.value += 7


def sign():
    time.sleep(0.8)
    signed.value = f"Signed by {observer.value.strip() or 'nobody'}"


@solara.component
def Page():
    solara.Title("Nest survey")
    solara.HTML(tag="h2", unsafe_innerHTML="Nest survey")
    solara.Button("Count nests", on_click=count)
    solara.Text(f"Result: {nests.value} nests counted" if nests.value else "Result: nothing counted")
    solara.InputText("Observer", value=observer, continuous_update=True)
    solara.Button("Sign", on_click=sign)
    solara.Text(signed.value)
