"""The skill contract and its runtime.

A skill is described by a manifest (data, validated at load, never executed),
called with a ``SkillCall`` whose arguments are checked against the
manifest's JSON Schema, and ends in a ``SkillResult`` whose ``FailureKind``
recovery policies switch on. The registry gathers the manifests a robot can
use; skill leaves (ROS action client, VLA loop, builtins) run them.
"""

from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import ActionVerb, RosBinding, SkillKind, SkillManifest, VlaBinding
from bt_executive.skills.registry import SkillRegistry, UnknownSkill
from bt_executive.skills.strategy import RecoveryStrategy, StrategyKind
from bt_executive.skills.world_state import ObjectState, WorldState

__all__ = [
    "ActionVerb",
    "AttemptRecord",
    "FailureKind",
    "ManifestError",
    "ObjectState",
    "Problem",
    "RecoveryStrategy",
    "RobotCapabilities",
    "RosBinding",
    "SkillCall",
    "SkillKind",
    "SkillManifest",
    "SkillRegistry",
    "SkillResult",
    "StrategyKind",
    "UnknownSkill",
    "VlaBinding",
    "WorldState",
]
