"""The dependency graph of a plan: explicit `dependsOn` plus every `$steps.<id>` reference.

`order` returns the steps in a run order (dependencies first, otherwise as listed) and the
problems found: duplicate ids or capture names, unknown ids, references to later-unknown names,
and cycles (each reported once with its members).
"""

from __future__ import annotations

import heapq
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
    """The first listed step whose dependencies are done, again and again (the listed order
    wins), in one pass with a heap of ready steps by listed position; the steps left when none
    is ready form cycles."""
    ids = {s.id for s in steps}
    waiting = [len(g.deps.get(s.id, set()) & ids) for s in steps]  # dependencies not done yet
    followers: dict[str, list[int]] = {}
    for index, s in enumerate(steps):
        for need in g.deps.get(s.id, set()) & ids:
            followers.setdefault(need, []).append(index)
    ready = [index for index, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    done: set[str] = set()
    out: list[Step] = []
    while ready:
        step = steps[heapq.heappop(ready)]
        out.append(step)
        if step.id in done:
            continue  # a duplicate id (reported by `build`): its followers are counted once
        done.add(step.id)
        for follower in followers.get(step.id, ()):
            waiting[follower] -= 1
            if waiting[follower] == 0:
                heapq.heappush(ready, follower)
    if len(out) < len(steps):
        members = sorted({s.id for s in steps} - done)
        g.problems.append((members[0], "cycle", f"these steps depend on each other: {', '.join(members)}"))
    return out
