"""`PathSet.changed` (the indexer's incremental update) is the same set as a rebuild: same
lookups, same link resolution, case twins included — and the original is left as it was."""

from __future__ import annotations

import random

from service.graph.linkpath import PathSet

BASE = [
    "Welcome.md",
    "Projects/Plan.md",
    "Projects/plan.md",  # a case twin
    "Archive/Plan.md",
    "Notes/Idea.md",
    "Notes/Sub/Idea.md",
    "img/photo.png",
    "Daily/2026-11-24.md",
]
EXTRA = ["New/Plan.md", "Notes/Other.md", "PROJECTS/PLAN.md", "Welcome.md", "a/b/c/Deep.md", "img/photo 2.png"]
LINKS = [
    "Plan",
    "plan",
    "Projects/Plan",
    "Idea",
    "Sub/Idea",
    "photo.png",
    "Deep",
    "Other",
    "PLAN",
    "Welcome",
    "2026-11-24",
]


def same(a: PathSet, b: PathSet) -> None:
    assert sorted(a.paths()) == sorted(b.paths())
    assert dict(a._by_name.items()) == dict(b._by_name.items())
    for source in ["Welcome.md", "Notes/Idea.md", "Projects/Plan.md", "a/b/x.md"]:
        for link in LINKS:
            assert a.resolve(link, source) == b.resolve(link, source), (link, source)


def test_adding_and_removing_matches_a_rebuild() -> None:
    rng = random.Random(7)
    for _ in range(300):
        start = set(rng.sample(BASE + EXTRA, rng.randint(0, 10)))
        added = rng.sample(BASE + EXTRA, rng.randint(0, 4))
        removed = [p for p in rng.sample(BASE + EXTRA, rng.randint(0, 4)) if p not in added]
        before = PathSet(start)
        snapshot = (before.paths(), dict(before._by_name.items()))
        changed = before.changed(added=added, removed=removed)
        same(changed, PathSet((start | set(added)) - set(removed)))
        assert (before.paths(), dict(before._by_name.items())) == snapshot  # unchanged


def test_a_case_twin_takes_over_when_the_first_goes() -> None:
    paths = PathSet(["Projects/Plan.md", "Projects/plan.md"])
    assert paths.exact("projects/plan") == "Projects/Plan.md"
    assert paths.changed(removed=["Projects/Plan.md"]).exact("projects/plan") == "Projects/plan.md"
    assert paths.changed(added=["PROJECTS/PLAN.md"]).exact("projects/plan") == "PROJECTS/PLAN.md"
