"""A Gradio app for tabwire's real-app tests: a chat whose answer streams
in word by word, a dropdown whose choice is echoed, and a file upload
that reports what it received.

Run: python3 tests/apps/gradio_chat.py PORT (ready when / answers 200).
"""
import os
import sys
import time

import gradio as gr


def reply(message, history):
    words = f"You said {len(message.split())} words: {message}. That is all.".split()
    out = ""
    for w in words:
        time.sleep(0.15)
        out = (out + " " + w).strip()
        yield out


def colour(choice):
    return f"Chosen colour: {choice}"


def describe(path):
    if not path:
        return "No file yet"
    return f"Received {os.path.basename(path)} ({os.path.getsize(path)} bytes)"


with gr.Blocks(title="Helpers") as demo:
    gr.Markdown("# Helpers")
    gr.ChatInterface(reply)
    pick = gr.Dropdown(["Red", "Green", "Blue"], label="Colour", value="Red")
    chosen = gr.Textbox(label="Chosen")
    pick.change(colour, pick, chosen)
    upload = gr.File(label="Data file", type="filepath")
    report = gr.Textbox(label="Upload report")
    upload.upload(describe, upload, report)

demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), share=False, show_error=True)
