"""The dependency graph of a plan: explicit `dependsOn` plus every `$steps.<id>` reference.

`order` returns the steps in a run order (dependencies first, otherwise as listed) and the
problems found: duplicate ids or capture names, unknown ids, references to later-unknown names,
and cycles (each reported once with its members).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.plans.model import Plan, Step
from service.plans.refs import RefError, references


@dataclass
class Graph:
    order: list[Step] = field(default_factory=list)
    deps: dict[str, set[str]] = field(default_factory=dict)  # step id -> step ids it needs
    names: dict[str, str] = field(default_factory=dict)  # id or captureAs -> step id
    problems: list[tuple[str | None, str, str]] = field(default_factory=list)  # (step, code, message)


def build(plan: Plan) -> Graph:
    g = Graph()
    for step in plan.steps:
        for name in (step.id, step.capture_as):
            if name is None:
                continue
            if name in g.names and not (name == step.id and step.capture_as == step.id):
                g.problems.append((step.id, "duplicate_id", f"the name {name!r} is used twice"))
            g.names[name] = step.id
    params = {p.name for p in plan.params}
    for step in plan.steps:
        needs: set[str] = set()
        for dep in step.depends_on:
            if dep not in g.names:
                g.problems.append((step.id, "unknown_step", f"dependsOn names unknown step {dep!r}"))
            else:
                needs.add(g.names[dep])
        try:
            refs = references(step.args, step.item_name) + references(step.foreach)
        except RefError as exc:
            g.problems.append((step.id, "bad_reference", str(exc)))
            refs = []
        for ref in refs:
            if ref.kind == "step":
                if ref.name not in g.names:
                    g.problems.append((step.id, "bad_reference", f"$steps.{ref.name} names no step"))
                else:
                    needs.add(g.names[ref.name])
            elif ref.kind == "param" and ref.name not in params:
                g.problems.append((step.id, "bad_reference", f"${{{ref.name}}} names no parameter of the plan"))
            elif ref.kind == "item" and step.foreach is None:
                g.problems.append((step.id, "bad_reference", f"${ref.name} is only defined in a foreach step"))
        if step.id in needs:
            g.problems.append((step.id, "cycle", "the step depends on itself"))
            needs.discard(step.id)
        g.deps[step.id] = needs
    g.order = _topological(plan.steps, g)
    return g


def _topological(steps: list[Step], g: Graph) -> list[Step]:
    by_id = {s.id: s for s in steps}
    done: set[str] = set()
    out: list[Step] = []
    remaining = [s.id for s in steps]
    while remaining:
        ready = [sid for sid in remaining if g.deps.get(sid, set()) <= done]
        if not ready:
            members = sorted(remaining)
            g.problems.append((members[0], "cycle", f"these steps depend on each other: {', '.join(members)}"))
            return out
        first = ready[0]  # the first listed step whose dependencies are done: the listed order wins
        out.append(by_id[first])
        done.add(first)
        remaining.remove(first)
    return out
