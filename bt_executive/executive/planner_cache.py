"""One planner per profile for a long-lived executive: the local model starts once, not once per task.

The node asks its planner factory for a planner at every ExecuteTask goal.
Built afresh each time, a ``local`` profile (or ``auto`` falling back to it)
would start a llama.cpp server and process the whole system prompt again for
every task. ``PlannerCache`` is that factory for ``serve``: it builds the
planner of a profile on first use, hands the same instance to every later
task, and closes them all (stopping the servers they started) at shutdown::

    task 1 "local" -> make_planner("local")  (server starts, prompt processed)
    task 2 "local" -> the same planner        (prompt prefix cached: ~2 s)
    shutdown       -> planner.close()

``warm_in_background`` builds and warms a profile's planner on a thread
after the node is ready, so readiness never waits for a model.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from bt_executive.llm.plan import ClosablePlanner, Planner, WarmablePlanner
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

PlannerFactory = Callable[[str, SkillRegistry], Planner]
WorldSource = Callable[[], WorldState | None]

_log = logging.getLogger(__name__)

CLOSE_BOUND_S = 3.0
"""How long closing the planners may take at shutdown; a supervisor's grace before SIGTERM is 5 s."""


class PlannerCache:
    """A planner factory that builds each profile's planner once and closes them all at the end."""

    def __init__(self, make: PlannerFactory) -> None:
        self._make = make
        self._planners: dict[tuple[str, int], Planner] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._warming: threading.Thread | None = None

    def __call__(self, profile: str, registry: SkillRegistry) -> Planner:
        """The planner for ``profile`` over ``registry``: built on first use, the same one afterwards."""
        key = (profile, id(registry))
        with self._lock:
            if self._closed:
                raise RuntimeError("the planner cache is closed (the executive is shutting down)")
            planner = self._planners.get(key)
            if planner is None:
                planner = self._make(profile, registry)  # an error is not cached: the next task asks again
                self._planners[key] = planner
            return planner

    def release(self, registry: SkillRegistry) -> None:
        """Close the planners built over ``registry`` (the executive was cleaned up: it loads a new one)."""
        with self._lock:
            keys = [key for key in self._planners if key[1] == id(registry)]
            planners = [self._planners.pop(key) for key in keys]
        _close_all(planners)

    def __len__(self) -> int:
        return len(self._planners)

    def warm_in_background(
        self, profile: str, registry: SkillRegistry, world: WorldSource, world_wait_s: float = 10.0
    ) -> threading.Thread:
        """Build ``profile``'s planner and ``warm`` it (local model, prompt cache) on a daemon thread.

        The system prompt names the world's objects, so warming waits up to
        ``world_wait_s`` for a world state; without one it warms nothing.
        """

        def run() -> None:
            try:
                if self._closed:  # shut down before the thread ran: nothing to warm
                    return
                planner = self(profile, registry)
                if not isinstance(planner, WarmablePlanner):
                    return
                deadline = time.monotonic() + world_wait_s
                state = world()
                while state is None and time.monotonic() < deadline and not self._closed:
                    time.sleep(0.1)
                    state = world()
                if state is None or self._closed:
                    return
                started = time.monotonic()
                planner.warm(state)
                _log.info("planner %s warm in %.1f s", profile, time.monotonic() - started)
            except Exception as err:  # a task will meet the same problem and report it as planner_error
                if not self._closed:  # at shutdown a cut-off warm-up is expected
                    _log.warning("could not warm planner %s: %s", profile, err)

        thread = threading.Thread(target=run, name=f"warm-{profile}", daemon=True)
        self._warming = thread
        thread.start()
        return thread

    def close(self, timeout_s: float = CLOSE_BOUND_S) -> bool:
        """Close every planner built (stopping the local models they started); later calls raise.

        Bounded. A llama.cpp server that is reading a prompt (a warm-up cut off by the shutdown) stops only
        when the prompt is read, 7 s or more on 2 cores, and its release holds the GIL all that time, so no
        thread can bound it. So the warm-up gets ``timeout_s`` to end; if it is still running, nothing is
        closed and this returns False: the caller is exiting, and an in-process server ends with the process.
        """
        with self._lock:
            self._closed = True
            planners = list(self._planners.values())
            self._planners.clear()
        if self._warming is not None:
            self._warming.join(timeout_s)
            if self._warming.is_alive():
                _log.warning(
                    "a planner warm-up still runs after %.1f s: leaving its model to the process exit", timeout_s
                )
                return False
        _close_all(planners)  # no warm-up runs now: each server stops at once
        return True


def _close_all(planners: list[Planner]) -> None:
    """Close each planner that has something to close (a local model's server)."""
    for planner in planners:
        if isinstance(planner, ClosablePlanner):
            try:
                planner.close()
            except Exception as err:  # one planner's failure must not keep the others open
                _log.warning("closing a planner failed: %s", err)
