"""Hypothesis strategies that build valid instances of every contract."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from bt_executive.llm.plan import Plan
from bt_executive.skills.affordances import Affordance
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import ActionVerb, RosBinding, SkillKind, SkillManifest, VlaBinding
from bt_executive.skills.predicates import ARITY
from bt_executive.skills.strategy import RecoveryStrategy, StrategyKind
from bt_executive.skills.world_state import GripperState, ObjectState, WorldState

names = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
skill_ids = st.builds(lambda a, b: f"{a}/{b}", names, names)
prose = st.text(st.characters(exclude_categories=["Cc", "Cs"]) | st.sampled_from("\t\n"), min_size=1, max_size=500)
"""Text a description may hold: anything but control characters (tab and newline excepted, text_rules.Text)
and lone surrogates (no UTF-8 file holds one; pydantic refuses them as not a string)."""

json_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=8,
)
floats = st.floats(-10, 10, allow_nan=False)
vec3 = st.tuples(floats, floats, floats)


def _predicate(name: str, negated: bool, args: list[str]) -> str:
    call = f"{name}({', '.join(args[: ARITY[name]])})" if ARITY[name] else name
    return f"not {call}" if negated else call


predicates = st.builds(
    _predicate, st.sampled_from(sorted(ARITY)), st.booleans(), st.lists(names, min_size=2, max_size=2)
)

strategies = st.one_of(
    st.builds(
        lambda n, b: RecoveryStrategy(kind=StrategyKind.RETRY, attempts=n, backoff_s=b),
        st.integers(1, 10),
        st.sampled_from([0.0, 0.5, 2.0]),
    ),
    st.builds(lambda n: RecoveryStrategy(kind=StrategyKind.RECOVER, subtree=n), names),
    st.sampled_from([RecoveryStrategy(kind=StrategyKind.REPLAN), RecoveryStrategy(kind=StrategyKind.ABORT)]),
)


@st.composite
def parameter_schemas(draw: st.DrawFn) -> dict[str, Any]:
    props = draw(
        st.dictionaries(
            names,
            st.sampled_from(
                [
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "integer", "minimum": 0},
                    {"type": "string", "enum": ["a", "b"]},
                ]
            ),
            max_size=4,
        )
    )
    return {"type": "object", "properties": props, "required": sorted(props)[:1]}


@st.composite
def manifests(draw: st.DrawFn) -> SkillManifest:
    kind = draw(st.sampled_from(list(SkillKind)))
    data: dict[str, Any] = {
        "id": draw(skill_ids),
        "version": draw(st.from_regex(r"[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,2}", fullmatch=True)),
        "description": draw(prose.filter(lambda s: s.strip() != "")),
        "kind": kind,
        "actions": draw(st.lists(st.sampled_from(list(ActionVerb)), min_size=1, max_size=4, unique=True)),
        "objects": draw(st.lists(names, max_size=3)),
        "scenes": draw(st.lists(names, max_size=2)),
        "preconditions": draw(st.lists(predicates, max_size=3)),
        "effects": draw(st.lists(predicates, max_size=3)),
        "failure_kinds": draw(st.lists(st.sampled_from(list(FailureKind)), max_size=4, unique=True)),
        "recovery": draw(st.dictionaries(st.sampled_from(list(FailureKind)), strategies, max_size=3)),
        "timeout_s": draw(st.floats(0.1, 3600)),
        "requires": draw(st.lists(st.sampled_from(["arm", "gripper", "camera:front", "mobile_base"]), max_size=3)),
    }
    if kind is SkillKind.VLA:
        data["parameters"] = draw(st.none() | parameter_schemas())
        data["vla"] = VlaBinding(
            policy=draw(names),
            control_rate_hz=draw(st.floats(0.5, 100)),
            step_limit=draw(st.integers(1, 1000)),
            success_check=draw(st.none() | predicates),
        )
    else:
        data["parameters"] = draw(parameter_schemas())
    if kind is SkillKind.ROS_ACTION:
        data["ros"] = RosBinding(
            action_type="bt_executive_interfaces/action/RunSkill",
            action_name=f"skills/{draw(names)}",
            default_goal=draw(st.dictionaries(names, json_values, max_size=3)),
            field_mapping={"skill_id": "$skill", "args_json": "$args_json"},
        )
    return SkillManifest.model_validate(data)


skill_calls = st.builds(
    SkillCall,
    skill=skill_ids,
    args=st.dictionaries(names, json_values, max_size=3),
    prompt=st.none() | st.text(max_size=50),
    rationale=st.none() | st.text(max_size=50),
)


@st.composite
def skill_results(draw: st.DrawFn) -> SkillResult:
    success = draw(st.booleans())
    return SkillResult(
        success=success,
        failure_kind=None if success else draw(st.sampled_from(list(FailureKind))),
        reason=draw(st.text(max_size=200)),
        detail=draw(st.text(max_size=100)),
        evidence=draw(st.dictionaries(names, json_values, max_size=3)),
        duration_s=draw(st.floats(0, 1e4)),
    )


attempts = st.builds(
    AttemptRecord, plan_index=st.integers(0, 20), step=st.integers(0, 100), call=skill_calls, result=skill_results()
)
plans = st.builds(
    Plan,
    steps=st.lists(skill_calls, max_size=5).map(tuple),
    notes=st.text(max_size=100),
    planner=st.sampled_from(["stub", "local", ""]),
)
robots = st.builds(
    RobotCapabilities,
    name=names,
    arms=st.integers(0, 8),
    gripper=st.booleans(),
    mobile_base=st.booleans(),
    cameras=st.lists(names, max_size=3).map(tuple),
    actions=st.lists(st.sampled_from(list(ActionVerb)), max_size=4).map(tuple),
    provides=st.lists(names, max_size=3).map(tuple),
)
Vec3 = tuple[float, float, float]


def _box(corners: tuple[Vec3, Vec3]) -> tuple[Vec3, Vec3]:
    """Two corners as a region's (min corner, max corner): from_msg refuses a max below its min."""
    (ax, ay, az), (bx, by, bz) = corners
    return (min(ax, bx), min(ay, by), min(az, bz)), (max(ax, bx), max(ay, by), max(az, bz))


world_states = st.builds(
    WorldState,
    stamp=st.floats(0, 1e6),
    objects=st.lists(
        st.builds(
            ObjectState,
            id=names,
            category=names,
            colour=names,
            position=vec3,
            size=vec3,
            supported_by=st.none() | names,
            affordances=st.none() | st.lists(st.sampled_from(list(Affordance)), unique=True, max_size=5).map(tuple),
        ),
        max_size=4,
        unique_by=lambda o: o.id,  # a world state names each object once (from_msg refuses duplicates)
    ).map(tuple),
    gripper=st.builds(GripperState, opening=st.floats(0, 0.1), holding=st.none() | names),
    joint_positions=st.lists(floats, max_size=6).map(tuple),
    drawers=st.dictionaries(names, st.floats(0, 1), max_size=2),
    regions=st.dictionaries(names, st.tuples(vec3, vec3).map(_box), max_size=2),
)
