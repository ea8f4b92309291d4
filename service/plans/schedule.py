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


def _with_folders(paths: frozenset[str]) -> frozenset[str]:
    """The paths and every folder above them: two sets of touched paths overlap when one's paths
    meet the other's paths-with-folders (a folder and a file inside it interfere)."""
    out = set(paths)
    for rel in paths:
        parts = rel.split("/")
        out.update("/".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(out)


def interferes(a: str, b: str, touches: Touches) -> bool:
    if a not in touches and b not in touches:
        return False  # two reads
    if a not in touches or b not in touches:
        return True  # a read and a change
    ta, tb = touches[a], touches[b]
    if ta is None or tb is None:
        return True
    return bool(ta & _with_folders(tb) or tb & _with_folders(ta))


def run_after(order: list[Step], deps: Mapping[str, set[str]], touches: Touches) -> dict[str, set[str]]:
    """Step id -> the steps that must finish before it starts (see the module docstring).

    One pass in run order over the earlier reads, the earlier changes of unknown files and an
    index of the earlier changes by path, so a long plan of independent changes costs no
    pairwise comparison."""
    after = {s.id: set(deps.get(s.id, ())) for s in order}
    reads: list[str] = []
    changes: list[str] = []  # every earlier change
    opaque: list[str] = []  # earlier changes of files known only at run time
    by_path: dict[str, list[str]] = {}  # path or folder -> earlier changes touching it (with folders)
    for step in order:
        sid = step.id
        if sid not in touches:  # a read: after every earlier change
            after[sid].update(changes)
            reads.append(sid)
            continue
        mine = touches[sid]
        after[sid].update(reads)
        if mine is None:
            after[sid].update(changes)
            opaque.append(sid)
        else:
            after[sid].update(opaque)
            for rel in mine:  # earlier changes of this path, of a folder above it, or inside it
                after[sid].update(by_path.get(rel, ()))
            widened = _with_folders(mine)
            for rel in widened - mine:
                after[sid].update(w for w in by_path.get(rel, ()) if rel in (touches[w] or ()))
            for rel in widened:
                by_path.setdefault(rel, []).append(sid)
        changes.append(sid)
    for sid in after:
        after[sid].discard(sid)
    return after
