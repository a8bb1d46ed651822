"""A Shiny for Python app for tabwire's real-app tests. Shiny keeps one
WebSocket per page: the click goes up it, the server works for 0.8 s
(Shiny greys the output out meanwhile) and the new text comes down it.

- a button "Run report": after 0.8 s the output below it reads
  "Result: 42 items found" (before the first click it reads
  "Result: not run yet"); each later click gives the same text.
- a numeric input "Threshold" (starts at 10) and a button "Check": after
  0.8 s the second output reads "Check: 10 is below 50" or
  "Check: 60 is at least 50" for the threshold given.

Run: python3 tests/apps/shiny_slow.py PORT (ready when / answers 200).
"""
import asyncio
import sys

from shiny import App, reactive, render, ui

app_ui = ui.page_fluid(
    ui.h2("Report"),
    ui.input_action_button("run", "Run report"),
    ui.output_text("result"),
    ui.input_numeric("threshold", "Threshold", 10),
    ui.input_action_button("check", "Check"),
    ui.output_text("verdict"),
    title="Report",
)


def server(input, output, session):
    @render.text
    @reactive.event(input.run, ignore_none=False)
    async def result():
        if input.run() == 0:
            return "Result: not run yet"
        await asyncio.sleep(0.8)
        return "Result: 42 items found"

    @render.text
    @reactive.event(input.check, ignore_none=False)
    async def verdict():
        if input.check() == 0:
            return "Check: not run yet"
        await asyncio.sleep(0.8)
        value = input.threshold()
        if value is None:
            return "Check: no threshold"
        return f"Check: {value} is below 50" if value < 50 else f"Check: {value} is at least 50"


app = App(app_ui, server)

if __name__ == "__main__":
    from shiny import run_app

    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    run_app(app, host="127.0.0.1", port=port, launch_browser=False, log_level="warning")
