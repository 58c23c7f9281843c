"""CPU hogs beside a run: the busy robot computer that the soak and ``make test-under-load`` stand in.

A robot's cores are shared with perception, planning and logging, and the
timing bugs that hide on an idle machine show up beside them. A hog is a
child Python process spinning a bounded loop; it checks every few
milliseconds that its parent is still the one that started it, so a hog
never outlives a killed parent, and ``cpu_hogs`` stops every hog when its
block ends.

    python -m bt_executive.testing.cpu_load --hogs 2 -- make unit
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence

_HOG = (
    "import os, sys\n"
    "parent = int(sys.argv[1])\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(200_000):\n"
    "        pass\n"
)
"""Spin until the parent goes (re-parented: ``getppid`` changes), a few ms between checks. The parent's
pid is passed, not read at start: a parent killed while the hog was still starting would be missed."""


@contextlib.contextmanager
def cpu_hogs(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Run ``count`` CPU-bound processes for the block's length; each is killed when it ends."""
    if count < 0:
        raise ValueError(f"hogs: {count} is not a count (0 or more)")
    hogs = [
        subprocess.Popen([sys.executable, "-c", _HOG, str(os.getpid())], stdin=subprocess.DEVNULL)  # noqa: S603
        for _ in range(count)
    ]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command beside N hogs and exit with its status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound processes beside the command (default 2)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("command: give the command to run after --")
    if args.hogs < 0:
        parser.error(f"--hogs: {args.hogs} is not a count (0 or more)")
    with cpu_hogs(args.hogs) as hogs:
        print(f"cpu_load: {len(hogs)} hogs beside: {' '.join(command)}", file=sys.stderr, flush=True)
        return subprocess.run(command, check=False, env=os.environ.copy()).returncode  # noqa: S603 - the user's command


if __name__ == "__main__":
    sys.exit(main())
