"""One rclpy ActionClient per (action type, action name) per node, shared by every leaf of that skill.

An executive that runs for days compiles thousands of leaves. Were each leaf
to make its own ``ActionClient``, every one would join the node's wait set for
good and hold 5 DDS endpoints (3 service clients, 2 subscriptions): the
executor's wait set, the endpoints and the memory would grow with every task
(measured: ~1-2 MB and 4 waitables per task). Here a node has one client per
action, made on first use; leaves share it and tell their goals apart by goal
id, as rclpy's client already does (feedback callbacks, goal handles and
result requests are all keyed by goal id).

::

    node ── pool ─┬─ (RunSkill, skills/pick)     ◄── every pick leaf of every task
                  └─ (RunSkill, skills/place_on) ◄── every place_on leaf

Sharing makes rclpy's per-goal bookkeeping the thing that must not grow, so
``SharedActionClient.release`` forgets what a finished leaf run left in it:
the feedback callbacks of its goal ids (rclpy drops one only when its result
arrives, so a rejected, abandoned or preempted goal's stays, and with it the
leaf), result requests that will never be answered, and its goal handles.
It also works around two rclpy 9.1.2 defects (``rclpy/action/client.py``):
``send_goal_async`` registers a second, never-completed future per goal in
the waitable's future list (so the list, which the executor walks on every
wake, grows by one per goal), and the client joins the wait set before its
lock exists (rclpy#1589).

It also keeps what the status topic says of each goal a leaf sent, answered
or not (``reported_status``). Fast DDS waits only 100 ms for a new client's
reply channel, so right after discovery a server can accept a goal and its
answer never arrive; the status topic (transient local) still lists the
goal, and ``adopt_reported`` gives the leaf a handle for it, so the goal that
runs is the one the leaf watches, not a second one sent again.

Clients live as long as their node. ``destroy_clients(node)`` frees them, and
only once the executor has stopped spinning the node (destroying a client in
a spinning wait set ends the executor thread); a node destroyed with its
waitables (as ``RosHarness`` does) needs no call at all.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
import weakref
from collections.abc import Iterable
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.action.client import ActionClient, ClientGoalHandle
from rclpy.node import Node
from rclpy.task import Future
from unique_identifier_msgs.msg import UUID

_pools: weakref.WeakKeyDictionary[Node, dict[tuple[Any, str], SharedActionClient]] = weakref.WeakKeyDictionary()
_pools_lock = threading.Lock()
STALE_REQUEST_S = 30.0
"""A request unanswered this long never will be: a live server answers goal, cancel and result requests in ms."""


class SharedActionClient(ActionClient[Any, Any, Any]):
    """An ActionClient that many leaves share, that is safe to create while an executor spins the node.

    rclpy's ActionClient joins the node's wait set before it creates ``_lock``, so an executor
    spinning in another thread can call into it and die on the missing attribute (rclpy#1589).
    Here the lock exists first, and the one the base class creates later is ignored, so the
    executor and the caller never hold different locks.

    rclpy's ``execute`` reads the goal-handle and feedback maps without that lock, checking a
    key and then using it, while ``release`` forgets a finished run's goals from the tick's
    thread: a key gone in between raised KeyError out of the executor (four times in a 300-task
    soak). Here ``execute`` runs under the lock, and ``release`` and ``prune_stale`` take it; it
    is re-entrant, because what ``execute`` completes (a future's done callbacks, a cancel sent
    when a late answer accepts an abandoned goal) takes it again on the same thread.
    """

    def __init__(self, node: Node, action_type: Any, action_name: str) -> None:
        self._lock = threading.RLock()
        self._sent_at: dict[int, float] = {}
        """``id(future)`` of each request sent -> when (``time.monotonic()``), for ``prune_stale``."""
        self._reported: dict[bytes, int] = {}
        """Goal id (``bytes(uuid)``) of each goal sent and not released -> its latest status on the topic."""
        self._reported_lock = threading.Lock()
        super().__init__(node, action_type, action_name)

    @property
    def _lock(self) -> Any:  # threading.RLock's type is private
        return self._first_lock

    @_lock.setter
    def _lock(self, lock: Any) -> None:
        if "_first_lock" not in self.__dict__:
            self._first_lock = lock

    stale_after_s: float = STALE_REQUEST_S
    """A request unanswered this long is dropped (a server that died never answers; rclpy keeps it forever)."""

    def send_goal_async(self, goal: Any, feedback_callback: Any = None, goal_uuid: Any = None) -> Future[Any]:
        """rclpy's ``send_goal_async``, without the orphan future it leaves in the waitable's list per goal."""
        if goal_uuid is None:
            goal_uuid = UUID(uuid=list(uuid.uuid4().bytes))
        with self._reported_lock:  # before the request: its status can come before its answer
            self._reported[bytes(goal_uuid.uuid)] = int(GoalStatus.STATUS_UNKNOWN)
        future = super().send_goal_async(goal, feedback_callback=feedback_callback, goal_uuid=goal_uuid)
        self._sent_at[id(future)] = time.monotonic()
        self._drop_orphan_futures()
        self.prune_stale()
        return future

    def _cancel_goal_async(self, goal_handle: Any) -> Future[Any]:
        """rclpy's cancel request (``ClientGoalHandle.cancel_goal_async`` calls it), with its send time noted."""
        future = super()._cancel_goal_async(goal_handle)
        self._sent_at[id(future)] = time.monotonic()
        return future

    def _get_result_async(self, goal_handle: Any) -> Future[Any]:
        """rclpy's result request, with its send time noted."""
        future = super()._get_result_async(goal_handle)
        self._sent_at[id(future)] = time.monotonic()
        return future

    async def execute(self, taken_data: Any) -> None:
        """rclpy's handling of what the wait set took, after noting the statuses of this client's goals."""
        status_array = taken_data.get("status") if isinstance(taken_data, dict) else None
        if status_array is not None:
            with self._reported_lock:
                for status in status_array.status_list:
                    key = bytes(status.goal_info.goal_id.uuid)
                    if key in self._reported:
                        self._reported[key] = int(status.status)
        with self._lock:  # no release() between rclpy's check of a goal key and its use
            await super().execute(taken_data)

    def reported_status(self, goal_key: bytes) -> int:
        """The goal's latest status on the status topic (``STATUS_UNKNOWN`` until it is listed)."""
        with self._reported_lock:
            return self._reported.get(goal_key, int(GoalStatus.STATUS_UNKNOWN))

    def adopt_reported(self, goal_id: Any) -> ClientGoalHandle[Any, Any, Any] | None:
        """A handle for a goal the status topic lists although its goal response never came, else None.

        The server listed it, so it accepted it: the handle cancels it and asks for its result as
        one from an answer would, and its ``status`` follows the status topic.
        """
        if self.reported_status(bytes(goal_id.uuid)) == GoalStatus.STATUS_UNKNOWN:
            return None
        return ReportedGoalHandle(self, goal_id, self._action_type.Impl.SendGoalService.Response(accepted=True))

    def _drop_orphan_futures(self) -> None:
        """Remove futures that no pending request holds and that will never complete.

        A future that completes leaves the pending map first and the list right after (its done
        callback), and it is done by then: so one that is neither pending nor done is an orphan.
        """
        with self._lock:
            pending = {id(f) for f in self._pending_futures()}
            orphans = [f for f in list(self._futures) if id(f) not in pending and not f.done()]
            for orphan in orphans:
                with contextlib.suppress(ValueError):  # gone already
                    self._futures.remove(orphan)

    def _pending_futures(self) -> list[Future[Any]]:
        return [
            f
            for requests in (self._pending_goal_requests, self._pending_cancel_requests, self._pending_result_requests)
            for f in list(requests.values())
        ]

    def release(self, goal_keys: Iterable[bytes], abandoned: Iterable[Future[Any]] = ()) -> None:
        """Forget what one finished leaf run left here: feedback callbacks, goal handles, abandoned requests.

        ``goal_keys`` are the run's goal ids (``bytes(uuid)``): every request it sent, adopted or
        not. Requests still unanswered stay pending while the server may answer them (a goal
        accepted late must still be cancelled; a result after a cancel arrives in milliseconds and
        rclpy then forgets it on its own). ``abandoned`` are requests the caller knows will never
        be answered (its server is gone): they go now. Whatever a dead server left pending
        goes once it is ``stale_after_s`` old (``prune_stale``).
        """
        with self._lock:
            for future in abandoned:
                self._forget_request(future)
            for key in goal_keys:
                self._feedback_callbacks.pop(key, None)
                self._goal_handles.pop(key, None)
            for key, ref in list(self._goal_handles.items()):
                if ref() is None:  # a handle nobody holds whose goal never reported an ending
                    self._goal_handles.pop(key, None)
        with self._reported_lock:
            for key in goal_keys:
                self._reported.pop(key, None)
        self.prune_stale()

    def prune_stale(self, now: float | None = None) -> int:
        """Drop requests unanswered for ``stale_after_s`` (their server died); how many."""
        now = time.monotonic() if now is None else now
        with self._lock:
            stale = [f for f in self._pending_futures() if now - self._sent_at.get(id(f), now) >= self.stale_after_s]
            for future in stale:
                self._forget_request(future)
            live = {id(f) for f in self._pending_futures()}
            for key in [k for k in list(self._sent_at) if k not in live]:
                self._sent_at.pop(key, None)
        return len(stale)

    def _forget_request(self, future: Future[Any]) -> None:
        """Remove one request's future from rclpy's maps and the waitable's future list, if still there."""
        if future.done():
            return  # its own done callback removes it
        self._remove_pending_goal_request(future)
        self._remove_pending_cancel_request(future)
        self._remove_pending_result_request(future)
        self._sent_at.pop(id(future), None)

    def holds(self) -> dict[str, int]:
        """How much per-goal state the client holds now (what must stay flat over many tasks)."""
        with self._lock:
            return {
                "feedback_callbacks": len(self._feedback_callbacks),
                "goal_handles": len(self._goal_handles),
                "pending_goal_requests": len(self._pending_goal_requests),
                "goal_ids_by_request": len(self._goal_sequence_number_to_goal_id),
                "pending_cancel_requests": len(self._pending_cancel_requests),
                "pending_result_requests": len(self._pending_result_requests),
                "goal_ids_by_result_request": len(self._result_sequence_number_to_goal_id),
                "futures": len(self._futures),
                "reported_statuses": len(self._reported),
            }


class ReportedGoalHandle(ClientGoalHandle[Any, Any, Any]):
    """A goal known from the status topic alone: its status is the topic's, not rclpy's goal-handle map."""

    @property
    def status(self) -> int:
        client = self._action_client
        assert isinstance(client, SharedActionClient)
        return client.reported_status(bytes(self.goal_id.uuid))


def shared_action_client(node: Node, action_type: Any, action_name: str) -> SharedActionClient:
    """The node's client for ``action_name`` of ``action_type``, made on first use."""
    key = (action_type, _resolved(node, action_name))
    with _pools_lock:
        pool = _pools.setdefault(node, {})
        client = pool.get(key)
        if client is None:
            client = SharedActionClient(node, action_type, action_name)
            pool[key] = client
        return client


def clients_of(node: Node) -> list[SharedActionClient]:
    """Every shared client the pool made on ``node``."""
    with _pools_lock:
        return list(_pools.get(node, {}).values())


def destroy_clients(node: Node) -> None:
    """Destroy the node's shared clients. Only once no executor spins the node (see the module docstring)."""
    with _pools_lock:
        pool = _pools.pop(node, {})
    for client in pool.values():
        if any(waitable is client for waitable in node.waitables):
            client.destroy()


def _resolved(node: Node, action_name: str) -> str:
    """``skills/pick`` and ``/ns/skills/pick`` on a node in ``/ns`` are one action."""
    try:
        return str(node.resolve_service_name(action_name))
    except Exception:  # an unresolvable name is still a key; the ActionClient reports it
        return action_name
