"""What every skill leaf is to the tree: a py_trees behaviour that runs one call and leaves a SkillResult.

``RosActionSkill``, ``VlaSkill`` and the builtin leaves all satisfy
``SkillLeaf``: the compiler reads ``call`` to label attempts and ``result``
(set when the leaf ends, cleared when it starts again) to decide recovery.
``WorldStateSource`` is how leaves and condition nodes read the world: a
callable returning the latest ``WorldState`` (a topic cache on a robot, the
sim backend in tests), or None when none has arrived yet. ``LeafEntries``
are the blackboard entries every leaf writes, ``<prefix>/<key>/feedback``
and ``<prefix>/<key>/result``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import py_trees

from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.world_state import WorldState

WorldStateSource = Callable[[], WorldState | None]
"""Returns the latest world state, or None when there is none yet. Must not block."""


@runtime_checkable
class SkillLeaf(Protocol):
    """A behaviour that runs one ``SkillCall`` and records how it ended."""

    name: str
    call: SkillCall
    result: SkillResult | None


def check_leaf_inputs(manifest: SkillManifest, call: SkillCall) -> None:
    """Refuse to build a leaf for a call of another skill than its manifest's."""
    if call.skill != manifest.id:
        raise ValueError(f"the call is for {call.skill}, the manifest is {manifest.id}")


class LeafEntries:
    """A leaf's blackboard entries: the latest feedback and the final result, under ``<prefix>/<key>/``.

    Written on the tick thread only. A leaf without feedback (the builtins)
    registers only its result.
    """

    def __init__(self, leaf: py_trees.behaviour.Behaviour, prefix: str, key: str, *, feedback: bool = True) -> None:
        base = f"{prefix.rstrip('/')}/{key}"
        self.feedback_key = f"{base}/feedback"
        self.result_key = f"{base}/result"
        self._client = leaf.attach_blackboard_client(name=leaf.name)
        if feedback:
            self._client.register_key(self.feedback_key, access=py_trees.common.Access.WRITE)
        self._client.register_key(self.result_key, access=py_trees.common.Access.WRITE)

    def feedback(self, value: Any) -> None:
        """Publish the latest feedback."""
        self._client.set(self.feedback_key, value, overwrite=True)

    def result(self, value: SkillResult) -> None:
        """Publish the final result."""
        self._client.set(self.result_key, value, overwrite=True)
