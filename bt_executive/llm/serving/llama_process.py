"""The child process that runs llama.cpp's server for ``LocalModelServer``: ``python -m`` this module.

Why a process of its own: xllamacpp's server object, released in the process
that made it, joins its worker thread while holding the GIL; on a busy machine
that worker can miss its stop signal, and the release never returns (seen in
``make test-under-load``: the main thread in ``xllamacpp::Server::~Server``,
the worker asleep in ``server_queue::worker_loop``). A child can always be
stopped: SIGTERM, then SIGKILL, with a bound. It also keeps llama.cpp's threads
and memory out of the executive.

Protocol: the child prints one line, ``listening <url>`` (or ``error <text>``),
then serves until its stdin closes (the parent stopped it or died) or it gets
SIGTERM, and leaves with ``os._exit`` so the server's destructor never runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from typing import Any

READY = "listening "
FAILED = "error "


def serve(args: argparse.Namespace) -> Any:
    """Start llama.cpp's server on the model; it serves on its own threads until the process ends."""
    xllamacpp: Any = importlib.import_module("xllamacpp")  # no type information in the wheel
    params = xllamacpp.CommonParams()
    params.model.path = args.gguf
    params.model_alias = {args.alias}  # a set: a plain string becomes one alias per letter
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.context
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.verbosity = -1
    params.warmup = False
    params.slot_save_path = args.slot_save_path
    return xllamacpp.Server(params)


def _watch_parent(stop: threading.Event) -> None:
    """stdin ends when the parent closes it or dies: then this process must not outlive it."""
    sys.stdin.read()
    stop.set()


def main(argv: list[str] | None = None) -> None:
    """Serve until stdin closes or SIGTERM; say ``listening <url>`` or ``error <text>`` first."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--context", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--slot-save-path", default="")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _signum, _frame: stop.set())
    try:
        server = serve(args)
    except Exception as err:  # the binding raises plain RuntimeError/ValueError for a bad file or port
        print(f"{FAILED}{' '.join(str(err).split())}", flush=True)
        os._exit(1)
    print(f"{READY}{server.listening_address}", flush=True)
    threading.Thread(target=_watch_parent, args=(stop,), name="parent-watch", daemon=True).start()
    while not stop.wait(1.0):  # a timed wait, so SIGTERM's handler runs at once
        pass
    os._exit(0)  # never the server's destructor: it is what can hang


if __name__ == "__main__":
    main()
