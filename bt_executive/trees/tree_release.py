"""Letting go of a finished task's tree, so that nothing it made outlives it.

py_trees keeps its blackboard in class-level dictionaries: every leaf's
blackboard client and the keys it registered stay there for the life of the
process unless unregistered, and with them the client (and so the leaf, its
call, its results). A leaf can also hold state outside the tree: a ROS action
leaf's goals in the node's shared action client, a VLA leaf's worker thread.
``release_subtree`` undoes all of it for a subtree that no longer runs: the
whole tree when its task ends (done, refused, preempted, planner error or an
exception), or the steps a replan cut away.
"""

from __future__ import annotations

import contextlib
import logging

import py_trees

_log = logging.getLogger(__name__)


def release_subtree(root: py_trees.behaviour.Behaviour) -> int:
    """Shut down every behaviour under ``root``, release its goals and its blackboard clients; how many."""
    count = 0
    for behaviour in list(root.iterate()):
        count += 1
        try:
            behaviour.shutdown()  # stops whatever still runs (a goal in flight, a VLA worker); else nothing
            destroy = getattr(behaviour, "destroy", None)
            if callable(destroy):
                destroy()
        except Exception:  # one behaviour's cleanup must not leave the others registered
            _log.exception("releasing %s", behaviour.name)
        for client in behaviour.blackboards:
            unregister_client(client)
        behaviour.blackboards = []
    return count


def unregister_client(client: py_trees.blackboard.Client) -> None:
    """Unregister ``client`` and each of its keys (clearing keys no other client uses), whatever is gone already.

    py_trees' own ``unregister`` stops at the first key whose metadata is gone (a blackboard
    cleared by someone else) and leaves the client and its other keys registered.
    """
    for key in [*client.read, *client.write, *client.exclusive]:
        with contextlib.suppress(KeyError):
            client.unregister_key(key, clear=True, update_namespace_cache=False)
    py_trees.blackboard.Blackboard.clients.pop(client.id(), None)
