"""A run's events told as a story: one line per event worth reading, as ``runs show`` and the report print them.

::

       0.00s  planning (0 attempt(s) so far)
       0.09s  plan #0 (stub): pick(red_cube), place_on(plate)
       0.19s    step 1 pick(red_cube)  failed missed_grasp: fingers_closed_on_nothing
       0.19s    retry 1/2 after missed_grasp
       0.90s  goal on(red_cube, plate): holds

``step_start`` events have no line of their own (the step's end says what it
did), nor do ``frame`` events: a frame is shown beside its moment.
"""

from __future__ import annotations

from pydantic import ValidationError

from bt_executive.skills.call import SkillCall
from bt_executive.trees.task_context import TaskEvent


def event_line(event: TaskEvent) -> str | None:
    """One line per event worth reading; step_start and recovery_end fold into their neighbours."""
    data = event.data
    at = f"{event.t:7.2f}s"
    match event.kind:
        case "planning":
            doing = "replanning" if data.get("replan") else "planning"
            return f"{at}  {doing} ({data.get('attempts', 0)} attempt(s) so far)"
        case "plan":
            labels = [step_label(step) for step in data.get("steps") or []]  # type: ignore[union-attr]
            shown = ", ".join(labels) if labels else "(nothing to do)"
            notes = f"  -- {data['notes']}" if data.get("notes") else ""
            return f"{at}  plan #{event.plan} ({data.get('planner') or '?'}): {shown}{notes}"
        case "plan_refused":
            problems = "; ".join(str(p) for p in data.get("problems") or [])  # type: ignore[union-attr]
            return f"{at}  plan #{event.plan} refused: {problems}"
        case "step_end":
            result = data.get("result") or {}
            assert isinstance(result, dict)
            if result.get("success"):
                verdict = "ok"
            else:
                verdict = f"failed {result.get('failure_kind')}: {result.get('reason', '')}"
            return f"{at}    step {event.step} {data.get('label', '')}  {verdict}"
        case "planner_refused":
            # an ambiguous task's meanings are sentences the user may say instead: each is shown
            said = [str(c) for c in data.get("candidates") or []]  # type: ignore[union-attr]
            listed = f" (say one of: {' | '.join(said)})" if said else ""
            return f"{at}  planner refused ({data.get('refusal')}): {data.get('reason', '')}{listed}"
        case "goal_check":
            goal = ", ".join(str(g) for g in data.get("goal") or [])  # type: ignore[union-attr]
            verdict = "holds" if data.get("held") else f"NOT MET: {data.get('unmet', '')}"
            return f"{at}  goal {goal}: {verdict}"
        case "step_skipped":
            return f"{at}    step {event.step} skipped: its effects already hold"
        case "retry":
            return f"{at}    retry {data.get('attempt')}/{data.get('of')} after {data.get('failure_kind')}"
        case "recovery":
            return f"{at}    recovery {data.get('recovery')} after {data.get('failure_kind')}"
        case "recovery_end":
            return f"{at}    recovery {'done' if data.get('success') else 'failed'}"
        case "final":
            return f"{at}  final: {data.get('final_reason')}" + (f" ({data['detail']})" if data.get("detail") else "")
    return None


def step_label(step: object) -> str:
    """``pick(red_cube)``, as the tree names it; a step that is not a valid call shows as it was logged."""
    try:
        return SkillCall.model_validate(step).label()
    except ValidationError:
        return str(step)
