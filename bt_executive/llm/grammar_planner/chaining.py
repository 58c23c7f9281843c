"""Emitting steps: each precondition checked, and met by bounded backward chaining over the manifests' effects."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import JsonValue

from bt_executive.llm.grammar_planner.attempt_history import RetryState, call_key
from bt_executive.llm.grammar_planner.imagined_plan import RATIONALE_LIMIT, atom
from bt_executive.llm.grammar_planner.object_phrases import ObjectPhrases
from bt_executive.llm.grammar_planner.planning_errors import (
    MissingSkill,
    NotAfforded,
    RetriesExhausted,
    UndoesGoal,
    UnplannableStep,
)
from bt_executive.llm.grammar_planner.skill_choice import (
    NAMED,
    Referent,
    affordance_needs,
    fit,
    names_category,
    referent_param,
)
from bt_executive.llm.grounding.object_matching import match_objects
from bt_executive.llm.language.task_grammar import Intent
from bt_executive.llm.plan import PlannerError, PlannerRefused, RefusalKind
from bt_executive.skills.affordances import AFFORDANCE_NAMES
from bt_executive.skills.call import SkillCall
from bt_executive.skills.conditions import apply_step, bind, bound_to_call
from bt_executive.skills.manifest import Role, SkillManifest
from bt_executive.skills.parameters import InvalidArguments, validate_arguments
from bt_executive.skills.predicates import Predicate, parse_predicate
from bt_executive.skills.registry import UnknownSkill

PARKING_SURFACE = "table"
"""Where a held object is put down when the next step needs an empty gripper."""

CHAIN_DEPTH = 3
"""How many achieving steps deep backward chaining may go for one unmet precondition."""


class Chaining(ObjectPhrases):
    """The layer that emits steps, meeting their preconditions by chaining or refusing them."""

    # -- emitting calls ---------------------------------------------------------------------------
    def already_done(self, skill: str, args: dict[str, JsonValue]) -> bool:
        """Whether this intent's call already succeeded in an earlier attempt (using that success up).

        For calls whose effect the world cannot show (tap, push, pour) or a later step may undo (pick,
        open, close); placements and going home are judged by the world state alone.
        """
        key = call_key(skill, args)
        if self.done_left[key] > 0:
            self.done_left[key] -= 1
            label = SkillCall(skill=skill, args=args).label()
            self.notes.append(f"skip {label}: done in an earlier attempt")
            return True
        return False

    def emit(
        self, skill: str, args: dict[str, JsonValue], rationale: str, extra_effects: Iterable[Predicate] = ()
    ) -> None:
        """Append a validated call whose preconditions hold now, then imagine its effects."""
        try:
            manifest = self.registry.get(skill)
        except UnknownSkill as err:
            raise MissingSkill(f"the task needs {skill}, which this robot's registry does not have ({err})") from None
        self.check_arguments(manifest, args)
        robot = self.registry.robot
        if robot is not None and (why := robot.unsupported_choice(args)) is not None:
            raise MissingSkill(f"{rationale!r}: {why}")
        call = SkillCall(skill=skill, args=args, rationale=rationale[:RATIONALE_LIMIT])
        failed = self.history.failed.get(call_key(skill, args))
        if failed is not None:
            if failed.state is RetryState.EXHAUSTED:
                raise RetriesExhausted(f"giving up: {failed.account()}; the stub planner will not try it again")
            homing = self.achiever(atom("at_home"))
            if homing is not None and "at_home" not in manifest.effects and not self.holds("at_home"):
                kind = failed.failures[-1].result.failure_kind
                self.emit(homing[0], homing[1], f"recover: {call.label()} failed ({kind})")
        self.meet_preconditions(call, bound_to_call(manifest.preconditions, manifest, args))
        apply_step(self.state, manifest, args)
        for effect in extra_effects:
            self.state.apply(effect)
        self.steps.append(call)

    @staticmethod
    def check_arguments(manifest: SkillManifest, args: dict[str, JsonValue]) -> None:
        """PlannerError unless ``args`` are valid for ``manifest``: no call leaves the planner unchecked."""
        try:
            validate_arguments(manifest, args)
        except InvalidArguments as err:
            raise PlannerError(f"the stub planner built invalid arguments: {err}") from err

    def meet_preconditions(self, call: SkillCall, preconditions: list[Predicate]) -> None:
        """Make every precondition of ``call`` hold, achieving unmet ones first; refuse or fail otherwise."""
        for _ in range(4 * CHAIN_DEPTH):  # each achievement may undo an earlier one (pick undoes gripper_empty)
            unmet = next((p for p in preconditions if not self.state.holds(p)), None)
            if unmet is None:
                return
            self.refuse_if_impossible(call, unmet)
            if self.depth >= CHAIN_DEPTH or not self.achieve(unmet, call):
                break
        raise UnplannableStep(
            f"cannot plan step {len(self.steps) + 1} {call.label()}: its precondition {unmet} "
            "does not hold there and no skill achieves it (world state and earlier steps considered)"
        )

    def refuse_if_impossible(self, call: SkillCall, unmet: Predicate) -> None:
        """An unmet affordance or a missing object is the task's fault, not the plan's: refuse it."""
        subject = unmet.args[0] if unmet.args else ""
        if unmet.name in AFFORDANCE_NAMES and not unmet.negated:
            raise NotAfforded(f"{call.label()} needs {unmet}, and {subject} is not {unmet.name} here")
        if unmet.name == "reachable" and not unmet.negated and not self.can_reach():
            raise NotAfforded(f"{call.label()} needs {subject} within reach, and no skill of this robot moves it there")
        if unmet.name == "exists" and not unmet.negated:
            known = ", ".join(self.world.ids())
            raise PlannerRefused(
                f"{call.label()} needs {subject}, which is not in the world ({known})", RefusalKind.NO_SUCH_OBJECT
            )

    def can_reach(self) -> bool:
        """Whether some skill makes an object reachable (a mobile base's approach): else out of reach stays so."""
        return any(parse_predicate(e).name == "reachable" for m in self.registry for e in m.effects)

    def achieve(self, goal: Predicate, call: SkillCall) -> bool:
        """Insert steps that make ``goal`` hold before ``call`` (one level of backward chaining)."""
        why = f"so that {call.label()} can run: {goal}"
        self.depth += 1
        try:
            if goal.name == "gripper_empty" and not goal.negated:
                held = self.held()
                if held is None:
                    return False
                return self.park(held, why)
            if goal.name == "clear" and not goal.negated:
                tops = [o for o in self.world.ids() if self.state.holds(atom("on", o, goal.args[0]))]
                built = [t for t in tops if str(atom("on", t, goal.args[0])) in {str(g) for g in self.goal}]
                if built:
                    raise UndoesGoal(
                        f"{call.label()} needs {goal.args[0]} clear, and that takes {built[0]} off it, which the task "
                        "put there: say the order (the bottom first)"
                    )
                for top in tops:
                    if not self.holds("holding", top):
                        if not self.holds("gripper_empty"):
                            self.meet_preconditions(call, [atom("gripper_empty")])
                        self.emit(*self.grasper(top), f"move {top} off {goal.args[0]} {why}")
                    self.park(top, why)
                return bool(tops)
            achiever = self.achiever(goal)
            if achiever is None:
                return False
            name, args = achiever
            self.emit(name, args, f"first {why}")
            return True
        finally:
            self.depth -= 1

    def achiever(self, goal: Predicate) -> tuple[str, dict[str, JsonValue]] | None:
        """A skill whose effect, unified with ``goal``, binds every required argument (the owner's first:
        ``reachable(x)`` is nav/approach_object's on a mobile robot, ``holding(x)`` the arm's pick), and that
        takes the object it binds as a clause naming it would be served: one whose ``objects`` name its kind
        before one for anything, and never one for other kinds (a pallet fork does not pick up a tote)."""
        found: list[tuple[int, int, str, dict[str, JsonValue]]] = []
        ordered = sorted(self.registry.ids(), key=lambda i: (not i.startswith(f"{self.owner}/"), i))
        for number, skill in enumerate(ordered):
            manifest = self.registry.get(skill)
            required = set((manifest.parameters or {}).get("required", ()))
            for text in manifest.effects:
                effect = bind(text, {})
                if effect.name != goal.name or effect.negated != goal.negated:
                    continue
                args: dict[str, JsonValue] = {}
                for param, value in zip(effect.args, goal.args, strict=True):
                    if param in (manifest.parameters or {}).get("properties", {}):
                        args[param] = value
                    elif param != value:
                        break
                else:
                    if required <= set(args) and (rank := self._takes(manifest, args)) is not None:
                        found.append((rank, number, skill, args))
                        break
        if not found:
            return None
        _, _, skill, args = min(found, key=lambda f: (f[0], f[1]))
        return skill, args

    def _takes(self, manifest: SkillManifest, args: dict[str, JsonValue]) -> int | None:
        """How the skill takes the object its call acts on (0: its kind is named, 1: anything, or no object to
        judge); None when it does not take it (its ``objects`` name other kinds only)."""
        param = referent_param(manifest, region=False)
        value = args.get(param) if param is not None else None
        obj = self.world.object(value) if isinstance(value, str) else None
        if param is None or obj is None or any(not obj.affords(n) for n in affordance_needs(manifest, param)):
            return 1  # nothing to judge, or what it lacks is refused as such (the plate is not graspable)
        fitting = fit(manifest, Referent(obj.id), self.world)
        if fitting is None:
            return None
        return 0 if fitting.score == NAMED else 1

    def grasper(self, obj: str) -> tuple[str, dict[str, JsonValue]]:
        """The call that puts ``obj`` in the gripper: the skill whose effect is holding(...) (pick)."""
        found = self.achiever(atom("holding", obj))
        if found is None:
            raise MissingSkill(f"no skill of this robot picks up {obj} (none has the effect holding(...))")
        return found

    def placer(self, target: str, held: str | None = None) -> tuple[str, str]:
        """The skill that puts what is held at ``target``, and its destination parameter, by the manifests.

        Among the skills that release what they hold (an effect ``gripper_empty``) into a destination
        parameter, and hold it with what the skill that picks ``held`` up holds it with (a pallet on the lift is
        not set down by the tote arm): the one whose ``objects`` name the target's category (a bin: place_in),
        else one whose preconditions the target affords (support(bowl): place_on)."""
        obj = self.world.object(target)
        picking = self.achiever(atom("holding", held)) if held is not None else None
        holds_with = _holder(self.registry.get(picking[0])) if picking is not None else frozenset()
        ranked: list[tuple[int, str, str]] = []
        for manifest in self.registry:
            destination = next((p for p, r in manifest.roles().items() if r is Role.DESTINATION), None)
            required = (manifest.parameters or {}).get("required", ())
            if destination is None or "gripper_empty" not in manifest.effects or list(required) != [destination]:
                continue
            if holds_with and not holds_with & _holder(manifest):
                continue
            needs = affordance_needs(manifest, destination)
            if obj is None or any(not obj.affords(n) for n in needs):
                continue
            ranked.append((2 if names_category(manifest, obj.category) else 1, manifest.id, destination))
        if not ranked:
            raise MissingSkill(f"no skill of this robot puts things at {target}")
        best = max(score for score, _, _ in ranked)
        top = sorted((skill, param) for score, skill, param in ranked if score == best)
        if len(top) > 1:
            raise PlannerRefused(
                f"to put something at {target}, {' and '.join(s for s, _ in top)} fit equally: say which",
                RefusalKind.AMBIGUOUS,
                candidates=[s for s, _ in top],
            )
        return top[0]

    def parking_surface(self) -> str | None:
        """Where a held thing is set down to free the gripper: the world's ``table``, else the one object "the
        table" names here (a home's kitchen table; faithfulness allows setting aside there too); None when
        there is none, or an earlier failure ruled it out."""
        if self.world.object(PARKING_SURFACE) is not None:
            surface: str | None = PARKING_SURFACE
        else:
            named = match_objects(f"the {PARKING_SURFACE}", self.world).ids
            surface = named[0] if len(named) == 1 else None
        return None if surface is None or surface in self.history.excluded else surface

    def park(self, held: str, why: str) -> bool:
        """Put ``held`` down on the parking surface; False when there is none to use."""
        surface = self.parking_surface()
        if surface is None:
            return False
        self.notes.append(f"put {held} down on the {surface} {why}")
        skill, param = self.placer(surface, held)
        self.emit(skill, {param: surface}, f"put {held} down {why}", [atom("on", held, surface)])
        return True

    def free_gripper(self, keep: str | None, intent: Intent) -> None:
        """Put down whatever is held (unless it is ``keep``) so the next step gets an empty gripper."""
        held = self.held()
        if held is None or held == keep:
            return
        surface = self.parking_surface()
        if surface is None:
            raise UnplannableStep(f"{intent.clause!r} needs an empty gripper, but it holds {held}; say where to put it")
        self.notes.append(f"put {held} down on the {surface}: {intent.clause!r} needs an empty gripper")
        skill, param = self.placer(surface, held)
        self.emit(skill, {param: surface}, f"{intent.clause}: put {held} down first")
        self.set_aside.add(len(self.steps) - 1)

    def affords(self, object_id: str, affordance: str) -> bool:
        """Whether the world says ``object_id`` affords this (a drawer listed only by id opens)."""
        return self.state.holds(atom(affordance, object_id))


def _holder(manifest: SkillManifest) -> frozenset[str]:
    """What of the robot a skill holds things with: what it requires, less the base and the cameras ("lift" for a
    pallet fork, "arm" and "gripper" for a tote arm)."""
    return frozenset(r for r in manifest.requires if r != "mobile_base" and not r.startswith("camera"))
