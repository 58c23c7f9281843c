"""Sending a task to a running executive and following it: what ``run`` and ``demo`` share."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter
from rclpy.node import Node
from unique_identifier_msgs.msg import UUID

from bt_executive.skills.action_client_pool import SharedActionClient
from bt_executive.skills.call import AttemptRecord

_ATTEMPTS = TypeAdapter(list[AttemptRecord])


class TaskFeedback(BaseModel):
    """One ExecuteTask feedback message."""

    model_config = ConfigDict(frozen=True)

    plan_index: int
    step: int
    skill: str
    tree_status: str


class TaskResult(BaseModel):
    """The ExecuteTask result, with its attempts parsed."""

    model_config = ConfigDict(frozen=True)

    success: bool
    final_reason: str
    attempts: list[AttemptRecord]
    error_code: int = 0
    """One stable number per ending (``executive/error_codes.py``; 0: done)."""
    status: int
    wall_s: float
    detail: str = ""
    goal: tuple[str, ...] = ()
    goal_held: bool | None = None


def execute_task_name(namespace: str) -> str:
    """The executive's ExecuteTask action under ``namespace``."""
    return f"{namespace.rstrip('/')}/bt_executive/execute_task" if namespace else "/bt_executive/execute_task"


SETTLE_S = 0.5
"""How long to wait after the server is seen before the first goal. ``wait_for_server`` says this client
has discovered the executive, not that the executive has discovered this client's reply channel; a goal
sent in between runs, but its response can be lost (Fast DDS waits ~100 ms for the channel), and then
the client never learns of its own task (seen in CI: the task ran, the client timed out)."""


class TaskClient:
    """An ExecuteTask client on ``node``; the caller spins the node.

    A goal's response can be lost even after ``SETTLE_S`` (seen in CI under load: the task ran, its
    pick was under way, and the client timed out waiting for the answer). The executive's status
    topic (transient local) still lists the goal, so a goal it lists is taken as accepted, as the
    skill leaves do (``SharedActionClient.adopt_reported``), and its result is asked for.
    """

    def __init__(self, node: Node, namespace: str = "") -> None:
        from bt_executive_interfaces.action import ExecuteTask

        self._type = ExecuteTask
        self.action_name = execute_task_name(namespace)
        self._client = SharedActionClient(node, ExecuteTask, self.action_name)
        self._handle: Any = None
        self._sent: Any = None
        self._goal_id: Any = None

    def wait_for_server(self, timeout_s: float) -> bool:
        """Whether the executive answered within ``timeout_s`` (then a short settle, see ``SETTLE_S``)."""
        if not self._client.wait_for_server(timeout_sec=timeout_s):
            return False
        time.sleep(SETTLE_S)
        return True

    def run(
        self,
        task: str,
        planner: str = "",
        on_feedback: Callable[[TaskFeedback], None] | None = None,
        timeout_s: float = 600.0,
    ) -> TaskResult:
        """Send the task, report feedback as it comes, and return the result (TimeoutError after ``timeout_s``)."""
        goal = self._type.Goal(task=task, planner_profile=planner)
        started = time.monotonic()

        def feedback(message: Any) -> None:
            if on_feedback is not None:
                fb = message.feedback
                on_feedback(
                    TaskFeedback(plan_index=fb.plan_index, step=fb.step, skill=fb.skill, tree_status=fb.tree_status)
                )

        self._handle = None
        self._goal_id = goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        self._sent = sent = self._client.send_goal_async(goal, feedback_callback=feedback, goal_uuid=goal_id)
        try:
            self._handle = self._accepted(sent, goal_id, started + timeout_s)
            response = _wait(self._handle.get_result_async(), started + timeout_s, "task result")
        finally:
            self._client.release([bytes(goal_id.uuid)])
        result = response.result
        return TaskResult(
            success=bool(result.success),
            final_reason=str(result.final_reason),
            error_code=int(result.error_code),
            attempts=_ATTEMPTS.validate_json(result.attempts_json or "[]"),
            status=int(response.status),
            wall_s=round(time.monotonic() - started, 3),
            detail=str(result.detail),
            goal=tuple(str(g) for g in result.goal),
            goal_held=None if result.goal_held < 0 else bool(result.goal_held),
        )

    def _accepted(self, sent: Any, goal_id: Any, deadline: float) -> Any:
        """The goal's handle: from its response, or from the status topic when the response is lost."""
        while not sent.done():
            adopted = self._client.adopt_reported(goal_id)
            if adopted is not None:
                return adopted
            if time.monotonic() > deadline:
                raise TimeoutError(f"no goal response from {self.action_name} before the deadline")
            time.sleep(0.01)
        handle = sent.result()
        if not handle.accepted:
            raise RuntimeError(f"{self.action_name} rejected the task")
        return handle

    def cancel(self, timeout_s: float = 5.0) -> None:
        """Ask the executive to cancel the task this client sent (its goals are cancelled with it).

        A task sent but not yet answered (the goal response may arrive after the task's first skill
        started) is cancelled once its goal response arrives or the status topic lists it, waiting up
        to ``timeout_s``.
        """
        handle, sent, goal_id = self._handle, self._sent, self._goal_id
        if handle is None and sent is not None:
            try:
                handle = self._accepted(sent, goal_id, time.monotonic() + timeout_s)
            except (TimeoutError, RuntimeError):  # never answered, or rejected: nothing to cancel
                return
        if handle is not None and handle.accepted:
            handle.cancel_goal_async()


def _wait(future: Any, deadline: float, what: str) -> Any:
    while not future.done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} before the deadline")
        time.sleep(0.01)
    return future.result()
