"""Driving a managed node from another process, as a lifecycle manager does, and reading its graph.

::

    lifecycle = LifecycleClient(node, "/robot1/bt_executive")   # before the executor spins the node
    lifecycle.change("configure")                                # True: the transition succeeded
    lifecycle.state()                                            # "inactive"
    made_by(node, "/robot1/bt_executive")                        # the node's endpoints beyond its base set

Transitions go through the node's standard services (``~/change_state``,
``~/get_state``); the graph is read from this process's view of the ROS
graph, which discovery fills in asynchronously, so a check waits for the
graph it expects (``wait_for_graph``) rather than reading it once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rclpy.node import Node

TRANSITIONS = ("configure", "cleanup", "activate", "deactivate", "shutdown")
"""Transition labels ``change`` takes (rcl resolves ``shutdown`` from whichever primary state the node is in)."""

BASE_SERVICES = (
    "change_state",
    "get_state",
    "get_available_states",
    "get_available_transitions",
    "get_transition_graph",
    "describe_parameters",
    "get_parameter_types",
    "get_parameters",
    "list_parameters",
    "set_parameters",
    "set_parameters_atomically",
    "get_type_description",
)
"""What every rclpy lifecycle node serves in every state (lifecycle, parameters, type descriptions)."""
BASE_TOPICS = ("/rosout", "/parameter_events", "transition_event")
"""What it publishes in every state (``transition_event`` relative to the node)."""

Graph = dict[str, frozenset[str]]
"""Endpoint kind (publishers, subscriptions, services, clients) -> names."""


class LifecycleClient:
    """ChangeState and GetState clients of one managed node (``fqn``, e.g. ``/ns/bt_executive``)."""

    def __init__(self, node: Node, fqn: str) -> None:
        from lifecycle_msgs.srv import ChangeState, GetState

        self.fqn = fqn.rstrip("/")
        self._change: Any = node.create_client(ChangeState, f"{self.fqn}/change_state")
        self._get: Any = node.create_client(GetState, f"{self.fqn}/get_state")
        self._change_type = ChangeState

    def wait_for_services(self, timeout_s: float) -> bool:
        """Whether both services answered within ``timeout_s``."""
        return bool(self._change.wait_for_service(timeout_s) and self._get.wait_for_service(timeout_s))

    def state(self, timeout_s: float = 10.0) -> str:
        """The node's lifecycle state label (``unconfigured``, ``inactive``, ``active``, ``finalized``)."""
        from lifecycle_msgs.srv import GetState

        response = _call(self._get, GetState.Request(), timeout_s)
        return str(response.current_state.label)

    def change(self, transition: str, timeout_s: float = 30.0) -> bool:
        """Ask for a transition by label (see ``TRANSITIONS``); whether the node reports success."""
        if transition not in TRANSITIONS:
            raise ValueError(f"unknown transition {transition!r}; one of {', '.join(TRANSITIONS)}")
        request = self._change_type.Request()
        request.transition.label = transition
        return bool(_call(self._change, request, timeout_s).success)


def graph_of(node: Node, fqn: str) -> Graph | None:
    """The endpoints of the node ``fqn`` as ``node`` sees the graph now; None while it is not discovered."""
    namespace, _, name = fqn.rstrip("/").rpartition("/")
    queries: dict[str, Callable[[str, str], list[tuple[str, list[str]]]]] = {
        "publishers": node.get_publisher_names_and_types_by_node,
        "subscriptions": node.get_subscriber_names_and_types_by_node,
        "services": node.get_service_names_and_types_by_node,
        "clients": node.get_client_names_and_types_by_node,
    }
    try:
        return {kind: frozenset(n for n, _ in query(name, namespace or "/")) for kind, query in queries.items()}
    except Exception:  # NodeNameNonExistentError: not (or no longer) discovered
        return None


def base_endpoints(fqn: str) -> Graph:
    """What a lifecycle node ``fqn`` has in every state, configured or not."""
    fqn = fqn.rstrip("/")
    topics = frozenset(t if t.startswith("/") else f"{fqn}/{t}" for t in BASE_TOPICS)
    return {
        "publishers": topics,
        "subscriptions": frozenset(),
        "services": frozenset(f"{fqn}/{s}" for s in BASE_SERVICES),
        "clients": frozenset(),
    }


def beyond_base(graph: Graph, fqn: str) -> Graph:
    """The endpoints in ``graph`` that are not the node's base set: what configure made."""
    base = base_endpoints(fqn)
    return {kind: names - base[kind] for kind, names in graph.items()}


def wait_for_graph(node: Node, fqn: str, expected: Callable[[Graph], bool], timeout_s: float = 20.0) -> Graph | None:
    """The node's graph once ``expected(graph)`` holds (the base set discovered too); the last one seen if never."""
    base = base_endpoints(fqn)
    deadline = time.monotonic() + timeout_s
    seen = None
    while time.monotonic() < deadline:
        seen = graph_of(node, fqn)
        if seen is not None and all(base[k] <= seen[k] for k in base) and expected(seen):
            return seen
        time.sleep(0.05)
    return seen


def _call(client: Any, request: Any, timeout_s: float) -> Any:
    """Call a service and wait for the answer (the caller's executor spins the node)."""
    if not client.wait_for_service(timeout_s):
        raise TimeoutError(f"no service {client.srv_name} within {timeout_s:g} s")
    future = client.call_async(request)
    deadline = time.monotonic() + timeout_s
    while not future.done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{client.srv_name} did not answer within {timeout_s:g} s")
        time.sleep(0.01)
    return future.result()
