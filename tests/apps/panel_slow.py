"""A Panel (HoloViz, on a Bokeh server) app for tabwire's real-app tests.
The page is a Bokeh document kept in step with the server over one
WebSocket (/ws): the click is sent up it as a model event, the server
works for 0.8 s and the changed text comes back down it as a patch.

- a button "Load stations": after 0.8 s the text below it reads
  "Result: 12 stations loaded" (before any click: "Result: nothing loaded");
- a slider "Radius (km)" (1..50, starts at 5; Bokeh draws it with
  noUiSlider inside a shadow root): the text below it, "Radius: 5 km",
  follows the slider's value as the server hears of it.

Run: python3 tests/apps/panel_slow.py PORT (ready when /liveness answers
200; the app itself is at /).
"""
import sys
import time

import panel as pn

pn.extension(inline=True)


def build():
    result = pn.pane.Str("Result: nothing loaded")
    button = pn.widgets.Button(name="Load stations", button_type="primary")

    def load(_event):
        time.sleep(0.8)
        result.object = "Result: 12 stations loaded"

    button.on_click(load)
    radius = pn.widgets.IntSlider(name="Radius (km)", start=1, end=50, value=5)
    shown = pn.pane.Str("Radius: 5 km")
    radius.param.watch(lambda e: setattr(shown, "object", f"Radius: {e.new} km"), "value")
    return pn.Column("## Weather stations", button, result, radius, shown)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 5006
    pn.serve(
        {"/": build},
        address="127.0.0.1",
        port=port,
        websocket_origin=[f"127.0.0.1:{port}", f"localhost:{port}"],
        show=False,
        liveness=True,
        title="Weather stations",
    )
