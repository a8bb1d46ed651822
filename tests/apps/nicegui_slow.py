"""A NiceGUI app for tabwire's real-app tests. Every event goes to the
server over NiceGUI's socket (Socket.IO on a WebSocket) and the answer
comes back the same way; the server takes its time before it answers.

- a text input "Bird name" and a button "Search": the server waits 0.8 s,
  then writes "Result: 3 sightings of <name>" (or "Result: no name given"
  when the input is empty) into the label below;
- a button "Start countdown": a server timer then writes "Countdown: 3",
  "Countdown: 2", "Countdown: 1" and "Liftoff!" half a second apart.

Run: python3 tests/apps/nicegui_slow.py PORT (ready when / answers 200).
"""
import asyncio
import sys

from nicegui import app, ui


@ui.page("/")
def index():
    ui.label("Bird search").classes("text-h5")
    name = ui.input("Bird name")
    result = ui.label("Result: none yet")

    async def search():
        await asyncio.sleep(0.8)
        given = (name.value or "").strip()
        result.text = f"Result: 3 sightings of {given}" if given else "Result: no name given"

    ui.button("Search", on_click=search)

    countdown = ui.label("Countdown: idle")
    state = {"left": 0}

    def tick():
        state["left"] -= 1
        if state["left"] > 0:
            countdown.text = f"Countdown: {state['left']}"
        else:
            countdown.text = "Liftoff!"
            timer.deactivate()

    timer = ui.timer(0.5, tick, active=False)

    def start():
        state["left"] = 4
        timer.activate()

    ui.button("Start countdown", on_click=start)


if __name__ in {"__main__", "__mp_main__"}:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    ui.run(
        host="127.0.0.1",
        port=port,
        title="Bird search",
        show=False,
        reload=False,
        show_welcome_message=False,
    )
