"""The life of a ``bt-executive`` ROS process: a context, a spinning executor, and a clean Ctrl-C.

Every long-running subcommand (``serve``, ``run``, ``demo``) needs the same
things: its own ``rclpy.Context`` (no global init), a MultiThreadedExecutor
on a background thread (the main thread stays free for the command's own
work and for signals), a spin loop that outlives an entity destroyed under
it (a lifecycle node's cleanup), and a teardown in the order rclpy needs
(stop the spin loop and join it before the executor and the nodes are destroyed),
bounded throughout (``runtime.ros_teardown``): a callback that does not return
or a handle still in use is logged by name, never waited on for good, and a
lifecycle node's state machine is destroyed with it, so the node leaves the
graph and the process's DDS participant is deleted with a goodbye to its peers.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Self

import rclpy
from rclpy.context import Context
from rclpy.exceptions import InvalidHandle
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node

from bt_executive.runtime.ros_teardown import destroy_node, shutdown_executor, where
from bt_executive.skills.action_skill import with_short_lease

_log = logging.getLogger(__name__)

STUCK_DUMP_S = 4.0
"""How long after a stop signal a process still running prints every thread's stack to stderr: before a
supervisor's grace (5 s: ``ProcessGroup.stop``) ends in SIGTERM and then SIGKILL, so what held it is on record."""


class RosProcess:
    """A context and a spinning executor for this process's nodes; SIGINT/SIGTERM call ``on_signal``."""

    def __init__(self, *, threads: int = 8) -> None:
        # Our participant's short lease lets peers see this process die within ~2 s.
        os.environ.update(with_short_lease())
        os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        self.context: Context = rclpy.Context()
        rclpy.init(context=self.context, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self.executor = MultiThreadedExecutor(num_threads=threads, context=self.context)
        self.nodes: list[Node] = []
        self.stop_requested = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop_spinning = threading.Event()
        self.callback_errors = 0  # callbacks that raised; each is logged with its traceback

    def add(self, node: Node) -> Node:
        """Spin ``node`` too (add every node before ``start``)."""
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def start(self) -> None:
        """Spin on a background thread."""
        self._thread = threading.Thread(target=self._spin, name="ros-spin", daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            while not self._stop_spinning.is_set() and self.context.ok():
                try:
                    self.executor.spin_once(timeout_sec=0.1)
                except InvalidHandle as err:
                    # An entity destroyed while the executor built its wait set (a lifecycle cleanup
                    # releasing a publisher's event handler, an action server): rclpy 9 can raise out of
                    # spin_once, which would end this thread. The next wait set no longer holds it.
                    _log.debug("spin: an entity went away under the wait set: %s", err)
                except ExternalShutdownException:
                    raise
                except Exception:
                    # A callback raised (MultiThreadedExecutor re-raises it from spin_once). Ending this
                    # thread would leave every timer, action and service of the process dead while it
                    # looks alive: a task that never ends. The callback's own work failed; the rest goes on.
                    self.callback_errors += 1
                    _log.exception("spin: a callback raised (%d so far); spinning on", self.callback_errors)
        except ExternalShutdownException:
            pass

    def handle_signals(self, on_signal: Callable[[], None] | None = None) -> None:
        """On SIGINT/SIGTERM: run ``on_signal`` (e.g. cancel goals) once, then set ``stop_requested``.

        A process still alive ``STUCK_DUMP_S`` after the first signal prints where every thread stands
        (faulthandler, to stderr): a shutdown that hangs names what it waits on before it is killed.
        """

        def handler(signum: int, _frame: FrameType | None) -> None:
            if self.stop_requested.is_set():
                return
            with contextlib.suppress(RuntimeError, ValueError):  # no usable stderr: nothing to dump to
                faulthandler.dump_traceback_later(STUCK_DUMP_S, exit=False, file=sys.stderr)
            if on_signal is not None:
                threading.Thread(target=self._graceful, args=(on_signal,), daemon=True).start()
            else:
                self.stop_requested.set()

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)

    def _graceful(self, on_signal: Callable[[], None]) -> None:
        try:
            on_signal()
        finally:
            self.stop_requested.set()

    def stop_spinning(self) -> bool:
        """Stop the spin loop and join its thread (before destroying entities the executor may be using).

        Whether it stopped: a thread still in a callback after 5 s is logged with where it is.
        """
        self._stop_spinning.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            if self._thread.is_alive():
                _log.error("the spin thread did not stop within 5 s: %s", where(self._thread))
                return False
            self._thread = None
        return True

    def close(self) -> None:
        """Stop spinning, join the thread, then destroy executor, nodes and context, in that order, bounded."""
        if self.stop_spinning():  # a loop still running would die on the executor's destroyed guard condition
            for stuck in shutdown_executor(self.executor, 2.0):
                _log.error("a callback still ran 2 s after the executor shut down: %s", stuck)
        for node in self.nodes:
            for held in destroy_node(node, 2.0):
                _log.error("%s", held)
        self.context.try_shutdown()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
