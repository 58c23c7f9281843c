"""A scripted skill takes its arguments, their defaults and its deadline from its manifest, not from Python."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from bt_executive.sim.backend import SimBackend
from bt_executive.sim.execution import SkillGenerator
from bt_executive.sim.motions import SKILLS, ArgumentView
from bt_executive.sim.motions.arguments import check_view
from bt_executive.skills.call import SkillResult
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.manifest import SkillManifest

pytestmark = pytest.mark.sim


def _with_default_goal(manifest: SkillManifest, goal: dict[str, object]) -> SkillManifest:
    assert manifest.ros is not None
    return manifest.model_copy(update={"ros": manifest.ros.model_copy(update={"default_goal": goal})})


def _recorder(seen: list[ArgumentView]) -> object:
    def record(ctx: object, args: ArgumentView) -> SkillGenerator:
        seen.append(args)
        yield from ()
        return SkillResult.ok("recorded")

    return record


def test_an_argument_left_out_reaches_the_motion_as_the_manifests_default(
    backend: SimBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    push = SKILLS["push"]
    monkeypatch.setattr(push, "manifest", _with_default_goal(push.manifest, {"distance": 0.08}))
    seen: list[ArgumentView] = []
    monkeypatch.setattr(push, "body", _recorder(seen))
    backend.run_skill("push", {"object": "red_cube", "direction": "left"})
    assert [getattr(args, "distance", None) for args in seen] == [0.08]


def test_a_nested_argument_left_out_keeps_the_manifests_default_beside_the_one_given(
    backend: SimBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[ArgumentView] = []
    monkeypatch.setattr(SKILLS["pick"], "body", _recorder(seen))
    backend.run_skill("pick", {"object": "red_cube", "grasp": {"lift_height": 0.2}})
    ros = SKILLS["pick"].manifest.ros
    assert ros is not None
    approach = ros.default_goal["grasp"]["approach_height"]
    assert [args.model_dump() for args in seen] == [
        {"object": "red_cube", "grasp": {"approach_height": approach, "lift_height": 0.2}}
    ]


@pytest.mark.parametrize(
    ("skill", "args", "field"),
    [
        ("push", {"object": "red_cube", "direction": "up"}, "direction"),
        ("push", {"object": "red_cube"}, "direction"),
        ("pick", {"object": "red_cube", "grasp": {"lift_height": 0.9}}, "grasp.lift_height"),
        ("tap", {"object": "red_cube", "force": 3}, "force"),
    ],
    ids=["bad_value", "missing", "out_of_bounds_nested", "unexpected"],
)
def test_a_bad_argument_fails_as_invalid_params_naming_the_field(
    backend: SimBackend, skill: str, args: dict[str, JsonValue], field: str
) -> None:
    result = backend.run_skill(skill, args)
    assert (result.failure_kind, result.reason, result.evidence.get("field")) == (
        FailureKind.INVALID_PARAMS,
        "invalid_args",
        field,
    )


def test_the_deadline_is_the_manifests_timeout(backend: SimBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    tap = SKILLS["tap"]
    monkeypatch.setattr(tap, "manifest", tap.manifest.model_copy(update={"timeout_s": 7.5}))
    execution = backend.start_skill("tap", {"object": "red_cube"})
    execution.cancel()
    assert execution.timeout_s == 7.5


@pytest.mark.parametrize("name", sorted(SKILLS))
def test_every_scripted_skill_reads_exactly_the_fields_its_manifest_states(name: str) -> None:
    assert SKILLS[name].manifest.id == f"tabletop/{name}"  # reading it checks the argument view against it


def test_an_argument_view_that_drifts_from_its_manifest_is_refused_naming_the_field() -> None:
    class DriftedPushArgs(ArgumentView):
        object: str
        direction: str
        distance: int  # the manifest says number

    with pytest.raises(ManifestError) as caught:
        check_view(DriftedPushArgs, SKILLS["push"].manifest, "push.yaml")
    assert [p.field for p in caught.value.problems] == ["parameters.properties.distance.type"]


def test_an_optional_argument_without_a_default_in_the_manifest_is_refused() -> None:
    place_on = SKILLS["place_on"]  # release_height: its default is in ros.default_goal only
    with pytest.raises(ManifestError) as caught:
        check_view(place_on.args, _with_default_goal(place_on.manifest, {}), "place_on.yaml")
    assert [p.field for p in caught.value.problems] == ["parameters.properties.release_height"]
