"""``bt-executive policy-server``: serve an installed policy over openpi's websocket protocol.

::

    bt-executive policy-server --policy oracle --port 8000
    policy server ready: ws://127.0.0.1:8000 (policy oracle)

The policy is an installed ``bt_executive.policies`` entry point (never a
module path). A VLA manifest reaches it with ``vla.endpoint:
ws://127.0.0.1:8000``; a real openpi client can too. ``--port 0`` lets the
OS pick a free port (the ready line says which). Binds loopback unless
``--host`` says otherwise. Exits 0 on Ctrl-C or SIGTERM, 2 when the policy
is not installed.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``policy-server``."""
    server = commands.add_parser(
        "policy-server", help="serve an installed VLA policy over the openpi websocket protocol"
    )
    server.add_argument("--policy", required=True, metavar="NAME", help="installed bt_executive.policies entry point")
    server.add_argument("--port", type=int, default=8000, help="TCP port (0: any free port)")
    server.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    server.set_defaults(func=run_policy_server)


def run_policy_server(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from bt_executive.skills.policy import PolicyNotFound, load_policy
    from bt_executive.skills.policy_server import PolicyServer

    if not 0 <= args.port <= 65535:
        sys.stderr.write(f"error: --port {args.port} is not a TCP port (0-65535)\n")
        return 2
    try:
        policy = load_policy(args.policy)
    except PolicyNotFound as err:
        sys.stderr.write(f"error: --policy: {err}\n")
        return 2
    server = PolicyServer(policy, host=args.host, port=args.port)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        server.stop(timeout_s=0.0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def ready(running: PolicyServer) -> None:
        print(f"policy server ready: {running.url} (policy {args.policy})", flush=True)

    try:
        server.serve_forever(on_ready=ready)
    except OSError as err:  # port in use, bad address
        sys.stderr.write(f"error: cannot serve on {args.host}:{args.port}: {err}\n")
        return 2
    return 0
