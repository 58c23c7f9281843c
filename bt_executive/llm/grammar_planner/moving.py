"""Taking, putting and stacking: the grasp, the destination, and opening what hides an object first."""

from __future__ import annotations

from pydantic import JsonValue

from bt_executive.llm.grammar_planner.imagined_plan import atom
from bt_executive.llm.grammar_planner.planning_errors import MissingSkill, NotAfforded
from bt_executive.llm.grammar_planner.skill_acts import SkillActs
from bt_executive.llm.grammar_planner.skill_choice import Referent, affordance_needs, candidates, fit, names_category
from bt_executive.llm.language.lexicon import load_lexicon
from bt_executive.llm.language.task_grammar import Intent, IntentAction
from bt_executive.llm.plan import PlannerRefused
from bt_executive.skills.call import SkillCall
from bt_executive.skills.manifest import ActionVerb, Role, SkillManifest
from bt_executive.skills.predicates import Predicate, parse_predicate


class Moving(SkillActs):
    """The layer that takes, puts and stacks objects."""

    def pick(self, intent: Intent) -> None:
        claimed = intent.verb is not None and any(intent.verb in m.phrases() for m in self.registry)
        if claimed and not (intent.verb or "").endswith(" out"):
            self.act(intent)  # "fetch the mug": a skill that claims the verb as its own serves it
            return
        obj = self.resolve(intent.object, intent)
        container = self.container_of(obj)
        if claimed and container is None:
            self.act(intent)  # "take out the rubbish"; but "take the mug out" of the fridge it is in is a pick
            return
        if container is not None and not self.affords(container, "openable") and self.take_out(obj, container, intent):
            return  # in a fridge, a box: the skill that takes things out of a container, where the robot has one
        self.last_object = obj
        skill, args = self.grasper(obj)
        if self.already_done(skill, args):
            return
        self.goal.append(atom("holding", obj))
        if self.holds("holding", obj):
            self.skip(SkillCall(skill=skill, args=args).label(), atom("holding", obj))
            return
        self.open_what_hides(obj, SkillCall(skill=skill, args=args))
        self.free_gripper(None, intent)
        self.emit(skill, args, intent.clause)

    def take_out(self, obj: str, container: str, intent: Intent, *, goal: bool = True) -> bool:
        """Grasp ``obj`` out of ``container`` with a skill that takes both (False when the robot has none);
        a container one of the robot's skills opens (a fridge, a cupboard) is opened first, unless this plan
        opened it already: the world state does not say whether it is open, and nothing is taken out of a
        closed one. ``goal``: holding ``obj`` is the task's end (a pick), not a step on the way (a put)."""
        for manifest in self.registry:
            roles = manifest.roles()
            source = next((p for p, r in roles.items() if r is Role.PLACE), None)
            taken = next((p for p, r in roles.items() if r is Role.OBJECT), None)
            if source is None or taken is None or f"holding({taken})" not in manifest.effects:
                continue
            if source not in (manifest.parameters or {}).get("required", ()):
                continue  # a place it takes "if known" (a slot label): not guessed from what the world says
            self.open_first(container, intent)
            if goal:
                self.goal.append(atom("holding", obj))
            self.last_object = obj
            self.emit(manifest.id, {taken: obj, source: container}, intent.clause)
            return True
        return False

    def open_first(self, container: str, intent: Intent) -> None:
        """Open ``container`` with the skill that opens things of its kind, when there is one and no step of
        this plan has opened it yet: before something is taken out of it or put into it."""
        openers = candidates(self.registry, None, {ActionVerb.OPEN})
        if not any(fit(m, Referent(container), self.world) for m in openers):
            return
        opened = self.holds("drawer_open", container) or any(  # the world says so, or a step opened it
            container in call.args.values() and ActionVerb.OPEN in self.registry.get(call.skill).actions
            for call in self.steps
        )
        if not opened:
            self.notes.append(f"{intent.clause!r}: open {container} first (nothing is taken out of a closed one)")
            self.act(Intent(action=IntentAction.OPEN, clause=intent.clause, verb="open", object=container))

    def put(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        try:
            target = self._target(intent, obj)
        except PlannerRefused:
            self.refuse_untakeable(obj)  # "pick up the table and carry it to ...": the table is the problem
            raise
        self.last_object = obj
        placed = self.placement(obj, target, intent)
        self.goal.append(placed[-1])
        for relation in ("on", "in"):  # "in the bowl" is done whether the world says in or on
            if self.holds(relation, obj, target):
                self.skip(f"put({obj}, {target})", atom(relation, obj, target))
                return
        try:
            skill, param = self.placer(target, obj)
        except MissingSkill:
            moving = self.mover(obj, target, relation=placed[-1].name)
            if moving is None:
                raise
            # A robot that manipulates through a VLA policy: one closed-loop call picks and places.
            self.emit(*moving, intent.clause, placed)
            return
        opened = atom("drawer_open", target)
        if self.affords(target, "openable") and not self.state.holds(opened):
            # An openable container takes things only when open; opening needs the gripper empty.
            self.meet_preconditions(SkillCall(skill=skill, args={param: target}), [opened])
        else:  # a fridge or cupboard a skill here opens: opened first, as before taking out (before the grasp:
            self.open_first(target, intent)  # opening needs the gripper empty)
        self._grasp(obj, intent)
        self.emit(skill, {param: target}, intent.clause, placed)

    def verb_of_another_skill(self, intent: Intent) -> bool:
        """Whether the placement's verb is a phrase of skills none of which places what is held, picks, or moves a
        thing somewhere in one motion ("load" of a lab's load_plate): that skill is what the verb asks for, not
        the robot's pick and place (nor another skill that also ends with the thing there)."""
        if intent.verb is None:
            return False
        own = [m for m in self.registry if intent.verb in m.phrases()]
        return bool(own) and not any(self._places_or_picks(m) for m in own)

    @staticmethod
    def _places_or_picks(manifest: SkillManifest) -> bool:
        """A skill of the put machinery: it puts down what is held, picks a thing up, or moves one in a motion."""
        effects = [parse_predicate(text) for text in manifest.effects]
        roles = manifest.roles()
        thing = next((p for p, r in roles.items() if r is Role.OBJECT), None)
        where = next((p for p, r in roles.items() if r is Role.DESTINATION), None)
        return any(
            e.name == "holding"
            or (e.name == "gripper_empty" and where is not None and thing is None)
            or (e.name == "on" and e.args == (thing, where))
            for e in effects
            if not e.negated
        )

    def refuse_untakeable(self, obj: str) -> None:
        """Refuse, naming why, when ``obj`` cannot be taken at all: no skill of the robot grasps anything
        (missing_skill), or the one that would needs what ``obj`` does not afford (not_afforded)."""
        if self.held() == obj:
            return
        skill, args = self.grasper(obj)
        manifest = self.registry.get(skill)
        for param, value in args.items():
            if value == obj and (lacks := [n for n in affordance_needs(manifest, param) if not self.affords(obj, n)]):
                raise NotAfforded(f"{skill}({obj}) needs {lacks[0]}({obj}), and {obj} is not {lacks[0]} here")

    def mover(
        self, obj: str, target: str, *, generalist: bool = True, relation: str = "on"
    ) -> tuple[str, dict[str, JsonValue]] | None:
        """A skill that puts ``obj`` at ``target`` in one motion (an effect on(<its object>, <its destination>),
        or in(...)): one whose ``objects`` name the target's category first, then one whose effect is the
        ``relation`` asked ("in the incubator": in), then one whose main action is PICK_AND_PLACE (stack before a
        generalist VLA skill, which ``generalist=False`` leaves out)."""
        place = self.world.object(target)
        ranked: list[tuple[bool, bool, bool, str, str, str]] = []
        for manifest in self.registry:
            roles = manifest.roles()
            thing = next((p for p, r in roles.items() if r is Role.OBJECT), None)
            where = next((p for p, r in roles.items() if r is Role.DESTINATION), None)
            moves = {
                e.name
                for text in manifest.effects
                if (e := parse_predicate(text)).name in ("on", "in") and e.args == (thing, where) and not e.negated
            }
            if thing is None or where is None or not moves:
                continue
            if not generalist and manifest.actions[0] is not ActionVerb.PICK_AND_PLACE:
                continue
            if self.other_kind(manifest, target, obj) is not None:
                continue  # a plate loader does not load into a reservoir
            named = place is not None and names_category(manifest, place.category)
            other_way = relation not in moves
            ranked.append(
                (not named, other_way, manifest.actions[0] is not ActionVerb.PICK_AND_PLACE, manifest.id, thing, where)
            )
        if not ranked:
            return None
        *_, skill, thing, where = min(ranked)
        return skill, {thing: obj, where: target}

    def placement(self, obj: str, target: str, intent: Intent) -> list[Predicate]:
        """What placing ``obj`` at ``target`` makes true; the last one is the task's goal for it."""
        # "in the bowl", or "to the bowl" (no relation said): a container holds what goes to it.
        into = intent.relation == "in" or (intent.relation is None and intent.action is IntentAction.PUT)
        if (into and self.affords(target, "container")) or not self.affords(target, "support"):
            return [atom("on", obj, target), atom("in", obj, target)]
        return [atom("on", obj, target)]

    def stack(self, intent: Intent) -> None:
        obj = self.resolve(intent.object, intent)
        base = self._target(intent, obj)
        self.last_object = obj
        stacked = atom("on", obj, base)
        self.goal.append(stacked)
        if self.holds("on", obj, base):
            self.skip(f"stack({obj}, {base})", stacked)
        elif self.holds("holding", obj) or (moving := self.mover(obj, base, generalist=False)) is None:
            # Held already (a pick succeeded before a replan), or no one-motion skill: place it instead.
            self._grasp(obj, intent)
            skill, param = self.placer(base, obj)
            self.emit(skill, {param: base}, intent.clause, [stacked])
        else:
            self.free_gripper(None, intent)
            self.emit(*moving, intent.clause)

    def home(self, intent: Intent) -> None:
        claiming = [m for m in self.registry if intent.clause in m.phrases()]
        if claiming:  # "go home", a phrase of the robot's own return-to-dock skill: that skill, not the arm's pose
            self.act(Intent(action=IntentAction.ACT, clause=intent.clause, verb=intent.clause, bare=True))
            return
        # "home" alone does not: "go to the kitchen, then go home" is the base's way back, not the arm's pose
        names_the_arm = set(intent.clause.split()) & (set(load_lexicon().home_pose_words) - {"home"})
        homing = self.achiever(atom("at_home"))
        if (self.base_move(self.steps) is not None or homing is None) and not names_the_arm:
            # "go to the kitchen, then come back": the base, not the arm (as on a robot with no arm pose to go to);
            # "... go back and charge": back to the dock, which the next clause must go to (``went_back``)
            self.going_back = intent.clause
            return
        if homing is None:  # no arm pose to be in: never done already
            raise MissingSkill("no skill of this robot goes home (none has the effect at_home)")
        self.goal.append(atom("at_home"))
        if self.holds("at_home"):
            self.skip("home", atom("at_home"))
            return
        self.emit(*homing, intent.clause)

    def base_move(self, steps: list[SkillCall]) -> SkillCall | None:
        """The first of ``steps`` that moves the robot's base (a skill whose actions include NAVIGATE), if any."""
        return next((s for s in steps if ActionVerb.NAVIGATE in self.registry.get(s.skill).actions), None)

    def stayed(self, asked: bool) -> None:
        """Refuse a plan that drives the base when the task says not to move ("without moving, photograph the
        pump"): the steps that need the base moved cannot be left out."""
        if asked and (moving := self.base_move(self.steps)) is not None:
            raise NotAfforded(f"the task says not to move, and {moving.label()} moves the base")

    def went_back(self, before: int, *, last: bool) -> None:
        """Refuse a bare "go back" said after the base moved, unless the clause after it (its steps from
        ``before``) moves the base: no skill takes the base back to where it started."""
        said = self.going_back
        if said is None or (not last and len(self.steps) == before):
            return
        if last or self.base_move(self.steps[before:]) is None:
            raise MissingSkill(
                f"{said!r} after going somewhere: no skill of this robot takes its base back to where it started; "
                "say where to go back to"
            )
        self.going_back = None

    def _grasp(self, obj: str, intent: Intent) -> None:
        """Make sure ``obj`` is in the gripper: put anything else down, then pick it unless held; out of the
        fridge or cupboard the world says it is in, with the skill that takes things out, as ``pick`` does."""
        if self.holds("holding", obj):
            return
        container = self.container_of(obj)
        if container is not None and not self.affords(container, "openable"):
            self.free_gripper(obj, intent)  # opening the fridge needs the gripper empty
            if self.take_out(obj, container, intent, goal=False):
                return
        skill, args = self.grasper(obj)
        self.open_what_hides(obj, SkillCall(skill=skill, args=args))
        self.free_gripper(obj, intent)
        self.emit(skill, args, f"{intent.clause}: grasp {obj} first")
