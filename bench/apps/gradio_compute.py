"""A small Gradio app for bench/real-app-tasks.py: a compute button whose
work takes a second, and a file upload that reports what it received.
Run: python3 bench/apps/gradio_compute.py PORT"""
import os
import sys
import time

import gradio as gr


def compute(n):
    time.sleep(1.0)
    return f"The square of {n} is {int(n) ** 2}"


def describe(path):
    if not path:
        return "No file yet"
    return f"Received {os.path.basename(path)} ({os.path.getsize(path)} bytes)"


with gr.Blocks(title="Squares") as demo:
    gr.Markdown("# Squares")
    number = gr.Number(label="Number", value=3)
    go = gr.Button("Compute")
    answer = gr.Textbox(label="Result")
    go.click(compute, number, answer)
    upload = gr.File(label="Data file", type="filepath")
    report = gr.Textbox(label="Upload report")
    upload.upload(describe, upload, report)

demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), share=False,
            show_error=True)
