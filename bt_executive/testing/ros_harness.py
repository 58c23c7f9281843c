"""RosHarness: nodes and a spinning executor for one test, torn down in the order rclpy needs.

::

    with RosHarness.open(domain_id) as harness:     # or the ros_harness fixture
        node = harness.node("executive")           # create every node and client first,
        skill = RosActionSkill(manifest, call, node)
        harness.start()                            # then spin, in a background thread
        ...

rclpy is unforgiving at the edges of a test (NOTES.md, measured):

- the executor is a ``MultiThreadedExecutor`` (``EventsExecutor`` spins at
  100% CPU with actions and never answers the client);
- its thread starts after the nodes' clients and servers exist (rclpy#1589:
  an ``ActionClient`` created under a spinning executor can kill its thread);
- teardown goes: stop the spin loop and join its thread, executor shutdown
  with a timeout, the shutdown transition of managed (lifecycle) nodes,
  destroy the action clients/servers, the nodes and their lifecycle state
  machines, ``context.try_shutdown()``, ``context.destroy()``, ``gc.collect()``.
  Skipping the join aborts the process at exit; skipping destroy leaves ghost
  nodes that answer ``wait_for_server``. The spin loop runs
  ``spin_until_future_complete(stop)`` and is stopped through that future
  before the executor shuts down: rclpy 9's ``shutdown()`` destroys the
  executor's guard condition without waiting for the loop, which then dies
  on the destroyed handle ("cannot use Destroyable because destruction was
  requested") now and then.
- every wait in the teardown is bounded (``bt_executive.runtime.ros_teardown``):
  a callback still running after the executor shut down, or a node handle
  still in use after its node was destroyed, fails ``close`` naming it and the
  threads' frames. A lifecycle node's state machine holds its rcl node, so
  without destroying it each executive a test made kept its context's DDS
  participant alive as long as the Python node lived: for the rest of the
  session, since its frame recorder's worker held it (19 at once in CI). A
  later teardown deleting its own participant under their discovery traffic
  deadlocked in Fast DDS (reproduced; stacks in ``ros_teardown``).

Each test gets its own ``rclpy.Context`` (``open_context``) on the session's
domain, and its own namespace, so a server left over from an earlier test
(a killed process lingers in discovery until its lease ends) is never the one
a later test talks to. rclpy is imported inside the functions: this module is
loaded by the pytest plugin on every run, ROS or not.
"""

from __future__ import annotations

import gc
import itertools
import os
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from rclpy.context import Context
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.node import Node
    from rclpy.task import Future

SHUTDOWN_TIMEOUT_S = 5.0
_namespaces = itertools.count(1)


def unique_namespace(prefix: str = "test") -> str:
    """A ROS namespace no other test in this process has used, e.g. ``/test_4711_3``."""
    return f"/{prefix}_{os.getpid()}_{next(_namespaces)}"


def open_context(domain_id: int) -> Context:
    """An initialised ``rclpy.Context`` of its own on ``domain_id`` (discovery stays on this machine)."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from bt_executive.skills.action_skill import FASTDDS_PROFILES_ENV, with_short_lease

    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    # Read when this process creates its first participant: announcing every 0.5 s instead of 3 s
    # cuts discovery of a freshly started server from up to ~2.5 s to ~0.1-0.4 s (measured).
    profile = with_short_lease().get(FASTDDS_PROFILES_ENV)
    if profile is not None:
        os.environ.setdefault(FASTDDS_PROFILES_ENV, profile)
    context = rclpy.Context()
    # pytest owns SIGINT/SIGTERM; rclpy's handlers would shut every context down under it.
    rclpy.init(context=context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
    return context


def close_context(context: Context) -> None:
    """The last two steps of the teardown: shut the context down and free it."""
    context.try_shutdown()
    context.destroy()
    gc.collect()


class TeardownError(RuntimeError):
    """Something still ran or held a node when the harness closed (named in the message)."""


class RosHarness:
    """The nodes of one test and the executor thread that spins them."""

    def __init__(self, context: Context, namespace: str = "/", *, num_threads: int = 4) -> None:
        self.context = context
        self.namespace = namespace
        self._num_threads = num_threads
        self._nodes: list[Node] = []
        self._executor: MultiThreadedExecutor | None = None
        self._thread: threading.Thread | None = None
        self._stop: Future[None] | None = None
        self._spin_error: BaseException | None = None
        self._owns_context = False

    @classmethod
    def open(cls, domain_id: int, namespace: str | None = None, *, num_threads: int = 4) -> Self:
        """A harness with a fresh context of its own, closed (context included) by ``close``."""
        harness = cls(open_context(domain_id), namespace or unique_namespace(), num_threads=num_threads)
        harness._owns_context = True
        return harness

    def node(self, name: str) -> Node:
        """A node in this harness's context and namespace; create them all before ``start``."""
        import rclpy

        node = rclpy.create_node(name, namespace=self.namespace, context=self.context)
        self._nodes.append(node)
        if self._executor is not None:
            self._executor.add_node(node)
        return node

    def adopt(self, node: Node) -> Node:
        """Spin and tear down a node created elsewhere (e.g. by the executive) with this harness's own."""
        self._nodes.append(node)
        if self._executor is not None:
            self._executor.add_node(node)
        return node

    @property
    def spinning(self) -> bool:
        """Whether the executor thread runs (an exception in a callback or in rclpy ends it)."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Spin every node so far in a MultiThreadedExecutor on a background thread."""
        from rclpy.executors import MultiThreadedExecutor
        from rclpy.task import Future

        if self._thread is not None:
            raise RuntimeError("the harness is already spinning")
        executor = MultiThreadedExecutor(num_threads=self._num_threads, context=self.context)
        for node in self._nodes:
            executor.add_node(node)
        self._executor = executor
        self._stop = Future()
        self._thread = threading.Thread(
            target=self._spin,
            args=(executor, self._stop),
            name=f"ros_harness{self.namespace}",
            daemon=True,
        )
        self._thread.start()

    def _spin(self, executor: MultiThreadedExecutor, stop: Future[None]) -> None:
        try:
            executor.spin_until_future_complete(stop)
        except BaseException as error:  # kept for close(): a dead executor must fail the test, not just warn
            self._spin_error = error
            raise

    def wait_until(self, predicate: Callable[[], bool], timeout_s: float = 10.0, what: str = "the condition") -> None:
        """Poll ``predicate`` (e.g. a client's ``server_is_ready``) until it holds; TimeoutError after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} did not happen within {timeout_s:g} s")
            time.sleep(0.005)

    def call(self, client: Any, request: Any, timeout_s: float = 5.0, attempts: int = 3, what: str = "") -> Any:
        """A service call's response, the request sent again when none came in ``timeout_s``.

        Fast DDS waits only ~100 ms for a new client's reply channel, so the first response right after
        discovery can be lost; waiting longer never brings it. Services whose repeat is harmless only
        (open/close of a stream, a state query). TimeoutError after ``attempts`` requests.
        """
        for _ in range(attempts):
            future = client.call_async(request)
            try:
                self.wait_until(future.done, timeout_s, what or "the service response")
            except TimeoutError:
                client.remove_pending_request(future)
                continue
            return future.result()
        raise TimeoutError(f"{what or 'the service'} answered none of {attempts} requests ({timeout_s:g} s each)")

    def close(self) -> None:
        """Tear down: spin loop and thread, executor, managed nodes' shutdown, nodes (and an owned context).

        Bounded throughout: ``TeardownError`` names a callback still running or a handle still in use
        (after the rest of the teardown, so one stuck node does not leak the others).
        """
        from bt_executive.runtime.ros_teardown import destroy_node, shut_down_lifecycle, shutdown_executor

        # The spin loop ends first (its stop future completes and wakes it), so that shutting the
        # executor down cannot destroy its guard condition under a wait set still in use: rclpy 9's
        # shutdown does not wait for the spin loop, and the loop then dies on a destroyed handle.
        if self._stop is not None and not self._stop.done():
            self._stop.set_result(None)
        if self._thread is not None:
            self._thread.join(timeout=SHUTDOWN_TIMEOUT_S)
            if self._thread.is_alive():
                raise RuntimeError("the executor thread did not stop; the process would abort at exit")
        problems: list[str] = []
        if self._executor is not None:
            stuck = shutdown_executor(self._executor, SHUTDOWN_TIMEOUT_S)
            problems += [
                f"a callback still ran {SHUTDOWN_TIMEOUT_S:g} s after the executor shut down: {s}" for s in stuck
            ]
        self._executor = None
        self._thread = None
        self._stop = None
        for node in self._nodes:  # managed nodes release what configure made (threads too) while all nodes exist
            try:
                shut_down_lifecycle(node)
            except Exception as err:  # reported with the rest; the nodes are still destroyed
                problems.append(f"{node.get_name()}: the shutdown transition raised {err!r}")
        for node in self._nodes:
            problems += destroy_node(node, SHUTDOWN_TIMEOUT_S)
        self._nodes.clear()
        if self._owns_context:
            close_context(self.context)
        if self._spin_error is not None:
            error, self._spin_error = self._spin_error, None
            raise RuntimeError(f"the executor thread died while the test ran: {error!r}") from error
        if problems:
            raise TeardownError("the ROS teardown could not release everything:\n" + "\n".join(problems))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
