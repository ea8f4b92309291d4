"""Which steps of a plan may run at the same time: the `after` graph the runner schedules by.

A step starts when every step in its `after` set has finished. That set holds its dependencies
(`dependsOn` and `$steps` references, `service.plans.graph`) plus an ordering edge from every
earlier step (in run order) it could interfere with:

- two steps that change nothing never interfere (reads run side by side);
- a read and a change keep their listed order (the read may be meant to see the change, or the
  state before it);
- two changes run side by side only when both touch files known from their arguments and no
  file or folder is touched by both (`EffectsBuilder.step`); a change whose files are known only
  at run time (a reference to a result, a move's link rewrites, a bulk or server-state tool) is
  ordered against every other change.

So two interfering steps always run in their listed order, and the result of a plan does not
depend on how its independent steps interleave. Extra `after` edges only order; they never make
a step skipped when another fails (only dependencies do).
"""

from __future__ import annotations

from collections.abc import Mapping

from service.plans.model import Step

Touches = Mapping[str, frozenset[str] | None]  # mutating step id -> files/folders, None: unknown


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    if a & b:
        return True
    return any(x.startswith(y + "/") or y.startswith(x + "/") for x in a for y in b)


def interferes(a: str, b: str, touches: Touches) -> bool:
    if a not in touches and b not in touches:
        return False  # two reads
    if a not in touches or b not in touches:
        return True  # a read and a change
    ta, tb = touches[a], touches[b]
    return ta is None or tb is None or _overlap(ta, tb)


def run_after(order: list[Step], deps: Mapping[str, set[str]], touches: Touches) -> dict[str, set[str]]:
    """Step id -> the steps that must finish before it starts (see the module docstring)."""
    after = {s.id: set(deps.get(s.id, ())) for s in order}
    for i, later in enumerate(order):
        for earlier in order[:i]:
            if earlier.id not in after[later.id] and interferes(earlier.id, later.id, touches):
                after[later.id].add(earlier.id)
    return after


def sequential(order: list[Step]) -> dict[str, set[str]]:
    """Every step after all the earlier ones: one at a time, in run order."""
    return {s.id: {e.id for e in order[:i]} for i, s in enumerate(order)}
