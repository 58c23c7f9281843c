"""Tearing rclpy down without hanging: a bounded executor shutdown, and nodes destroyed for good.

What rclpy 9.1.2 leaves to its caller (measured and read in its sources):

- ``LifecycleNode.destroy_node`` leaves the node's ``LifecycleStateMachine`` alone. Its C++
  object holds the rcl node, and through it the context, so the node stays in the graph and its
  context's DDS participant lives on until the Python object is collected: never, while anything
  (a worker thread's bound method) holds the node. A pytest session had 19 of them alive at once,
  all on its domain, and every new participant had their endpoints to discover. Fast DDS 3.2 can
  deadlock when a participant is deleted while such discovery arrives (gdb: ``rcl_node_fini`` ->
  ``destroy_participant`` -> ``DomainParticipant::set_listener`` spinning on a listener callback,
  which waits in ``on_writer_discovery`` for a lock; with the GIL held, so no Python thread runs).
- ``destroy_when_not_in_use`` never waits: a handle in use (a wait set, a callback) is destroyed
  later, by whoever releases it, possibly a garbage collection in another test.
- ``MultiThreadedExecutor.shutdown(timeout_sec)`` skips its bounded wait for callbacks and then
  joins its thread pool without bound.

``destroy_node`` destroys a node with all that rclpy leaves on it and checks, bounded, that no
handle of it is still in use; ``shutdown_executor`` bounds the wait for callbacks. Both return what
they could not release, named, for the caller to report. rclpy is imported inside the functions
(the test harness loads this module on every pytest run).
"""

from __future__ import annotations

import gc
import sys
import sysconfig
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rclpy.executors import Executor
    from rclpy.node import Node

TEARDOWN_TIMEOUT_S = 5.0
"""How long a callback may still run after its executor shut down, or a handle stay in use after its node went."""

_PRIMARY_STATES = ("unconfigured", "inactive", "active")
_LIBRARIES = tuple({sysconfig.get_path(name) for name in ("stdlib", "purelib", "platlib")})
"""Frames from these are Python's or a dependency's: ``where`` also names the innermost frame outside them."""


def shutdown_executor(executor: Executor, timeout_s: float = TEARDOWN_TIMEOUT_S) -> list[str]:
    """Shut ``executor`` down and wait at most ``timeout_s`` for its callbacks; those still running, and where.

    Call it once the spin loop has returned: the executor then holds no wait set (rclpy drops its
    callback generator in ``shutdown``), only callbacks its thread pool may still run.
    """
    from rclpy.executors import MultiThreadedExecutor

    if not isinstance(executor, MultiThreadedExecutor):
        executor.shutdown(timeout_sec=timeout_s)
        return []
    executor.shutdown(timeout_sec=timeout_s, wait_for_threads=False)
    pool = getattr(executor, "_executor", None)  # rclpy's ThreadPoolExecutor: its threads are the callbacks
    workers: list[threading.Thread] = list(getattr(pool, "_threads", ()))
    deadline = time.monotonic() + timeout_s
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
    return [where(worker) for worker in workers if worker.is_alive()]


def shut_down_lifecycle(node: Node) -> None:
    """The shutdown transition of a managed node in a primary state, as a lifecycle manager ends its life.

    It releases what the node's configure made (threads included) before the node is destroyed;
    any other node is left as it is. Call it once no executor spins the node.
    """
    from rclpy.lifecycle import LifecycleNode

    if isinstance(node, LifecycleNode) and node._state_machine.current_state[1] in _PRIMARY_STATES:
        node.trigger_shutdown()


def destroy_node(node: Node, timeout_s: float = TEARDOWN_TIMEOUT_S) -> list[str]:
    """Destroy ``node``, its action clients and servers and its lifecycle state machine; what still holds it.

    Empty when every handle of the node is gone within ``timeout_s`` (the node has left the graph,
    and its context's participant goes with its last node); otherwise each handle still in use,
    named, with where the threads that could hold it are. Call it once no executor spins the node.
    """
    name = _name(node)
    handles = _handles(node)
    for waitable in list(node.waitables):  # action clients and servers: rclpy leaves them to us
        destroy = getattr(waitable, "destroy", None)
        if callable(destroy):
            destroy()
    node.destroy_node()
    machine = getattr(node, "_state_machine", None)  # a LifecycleNode's: it holds the rcl node
    if machine is not None:
        machine.destroy_when_not_in_use()
    deadline = time.monotonic() + timeout_s
    held = _held(handles)
    while held and time.monotonic() < deadline:
        gc.collect()  # an abandoned callback generator keeps its wait set's handles until it is collected
        time.sleep(0.01)
        held = _held(handles)
    if not held:
        return []
    threads = [where(t) for t in threading.enumerate() if t is not threading.current_thread()]
    return [
        f"{name}: {what} still in use {timeout_s:g} s after destroy_node; threads: {'; '.join(threads)}"
        for what in held
    ]


def where(thread: threading.Thread) -> str:
    """A thread's name, its innermost frame and its innermost frame of ours (``file:line in function``)."""
    frame = sys._current_frames().get(thread.ident or -1)
    if frame is None:
        return f"{thread.name} (not running)"
    stack = traceback.extract_stack(frame)
    shown = [stack[-1]]
    ours = next((f for f in reversed(stack) if not f.filename.startswith(_LIBRARIES)), None)
    if ours is not None and ours is not stack[-1]:
        shown.append(ours)
    return f"{thread.name} at " + " < ".join(f"{f.filename}:{f.lineno} in {f.name}" for f in shown)


def _name(node: Node) -> str:
    try:
        return node.get_fully_qualified_name()
    except Exception:  # an already destroyed node has no name left to ask for
        return repr(node)


def _topic(entity: Any) -> str:
    """A publisher's or subscription's topic; rclpy asks its handle, which one destroyed already refuses."""
    try:
        return str(entity.topic_name)
    except Exception:  # destroyed by its owner, still listed on the node: its handle says whether it is gone
        return "(destroyed)"


def _handles(node: Node) -> list[tuple[str, Any]]:
    """Every handle of ``node`` that must be gone once it is destroyed, with what it is."""
    handles: list[tuple[str, Any]] = [("the node", node.handle)]
    handles += [(f"publisher {_topic(p)}", p.handle) for p in node.publishers]
    handles += [(f"subscription {_topic(s)}", s.handle) for s in node.subscriptions]
    handles += [(f"client {c.srv_name}", c.handle) for c in node.clients]
    handles += [(f"service {s.srv_name}", s.handle) for s in node.services]
    handles += [("a timer", t.handle) for t in node.timers]
    handles += [("a guard condition", g.handle) for g in node.guards]
    for waitable in node.waitables:
        handle = getattr(waitable, "_client_handle", None) or getattr(waitable, "_handle", None)
        if handle is not None:
            handles.append((f"{type(waitable).__name__} {getattr(waitable, '_action_name', '')}".strip(), handle))
    return handles


def _held(handles: list[tuple[str, Any]]) -> list[str]:
    """Those of ``handles`` not destroyed yet (rclpy's ``pointer`` is 0 once the rcl object is released)."""
    return [what for what, handle in handles if getattr(handle, "pointer", 0)]
