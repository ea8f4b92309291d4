"""`PathSet.changed` in long chains (the indexer's path set after every note created or removed):
each version answers as a rebuild of its paths would, earlier versions stay as they were, and a
version shares its predecessor's paths instead of copying them (flat again every `FLATTEN`
changes)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from service.graph import linkpath
from service.graph.linkpath import PathSet

NAMES = ["Plan.md", "plan.md", "Idea.md", "Other.md", "photo.png", "Deep.md", "Ünï.md", "ÜNÏ.md"]
FOLDERS = ["", "Projects/", "projects/", "Notes/Sub/", "a/b/"]
LINKS = ["Plan", "plan", "Projects/Plan", "Idea", "Sub/Idea", "photo.png", "Deep", "ünï", "./Other", "../Plan"]
SOURCES = ["Welcome.md", "Notes/Sub/Idea.md", "Projects/Plan.md", "a/b/x.md"]


def changes(
    rng: random.Random, every: Sequence[str], *, start: int, steps: int, most: int
) -> Iterator[tuple[PathSet, PathSet, set[str]]]:
    """A random chain of `steps` changes (up to `most` paths added and removed each) from `start`
    of `every`: each step's earlier version, its new version and the new version's paths."""
    present = set(rng.sample(every, start))
    current = PathSet(present)
    for _ in range(steps):
        added = rng.sample(every, rng.randint(0, most))
        removed = [p for p in rng.sample(every, rng.randint(0, most)) if p not in added]
        earlier, current = current, current.changed(added=added, removed=removed)
        present = (present | set(added)) - set(removed)
        yield earlier, current, present


def _answers(paths: PathSet) -> tuple[object, ...]:
    resolved = tuple(paths.resolve(link, source) for link in LINKS for source in SOURCES)
    names = tuple(tuple(paths.by_name(n.removesuffix(".md"))) for n in NAMES)
    return resolved, names, sorted(paths.paths()), tuple(f"{f}{n}" in paths for f in FOLDERS for n in NAMES)


@pytest.mark.parametrize("flatten", [3, 4096])
def test_a_chain_of_changes_answers_as_rebuilds_and_leaves_earlier_versions_alone(
    monkeypatch: pytest.MonkeyPatch, flatten: int
) -> None:
    monkeypatch.setattr(linkpath, "FLATTEN", flatten)
    rng = random.Random(11)
    every = [f"{f}{n}" for f in FOLDERS for n in NAMES]
    kept: list[tuple[PathSet, tuple[object, ...]]] = []
    for _, current, present in changes(rng, every, start=10, steps=200, most=2):
        answers = _answers(current)
        assert answers == _answers(PathSet(present))
        if rng.random() < 0.1:
            kept.append((current, answers))
    for version, answers in kept:
        assert _answers(version) == answers


def test_a_new_version_shares_the_paths_it_did_not_change() -> None:
    base = PathSet([f"Notes/n{i}.md" for i in range(1000)])
    one = base.changed(added=["Fresh/new.md"])
    two = one.changed(removed=["Notes/n5.md"])
    assert two._by_name.base is base._by_name.base
    assert len(two._by_name.over) == 2
    assert "Fresh/new.md" in two and "Notes/n5.md" not in two and "Notes/n5.md" in base
