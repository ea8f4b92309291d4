"""The Dataview page set finds pages by base name as the dict of every lower-case name did: the
same paths in the same order (shallowest, then by path), names whose hashes collide told apart,
and every link target with a folder resolving to the page it resolved to before; a bare name
resolves as the link index reads it (`linkpath.PathSet.resolve`), the path as written first.

The bare names were checked against the old reading too until session 74 (H2): it looked a name
written with '.md' up as the stem without it only ('PLAN.MD' never found plan.md.md, the note
'plan.md', which the index resolved it to) and took the shallowest then first path of several,
where the index takes the shallowest then shortest (aa/x.md against b/x.md). Dataview resolves
every link with Obsidian's own lookup (`metadataCache.getFirstLinkpathDest`, its link
normalizer), which the link index models: the two now agree. A target with a folder ending in
'.MD' was looked up with its '.MD' kept (no note named so): it is '.md' in any letter case, as
the index reads it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.dataview import names as names_module
from service.dataview.names import Names
from service.dataview.pages import PageSet
from service.graph.linkpath import PathSet


def _old_by_name(paths: list[str]) -> dict[str, Any]:
    """The lookup the page set held before: lower-case base name -> path, or a list of them, in
    the order of Obsidian's link lookup (the shortest path first; fewest folders before s74)."""
    by_name: dict[str, Any] = {}
    for path in sorted(paths, key=lambda p: (len(p), p)):
        name = path.rsplit("/", 1)[-1].removesuffix(".md").lower()
        had = by_name.setdefault(name, path)
        if had is not path:
            by_name[name] = [*had, path] if isinstance(had, list) else [had, path]
    return by_name


def _old_resolve(paths: list[str], by_name: dict[str, Any], target: str) -> str | None:
    target = target.strip()
    if not target:
        return None
    for candidate in (target, target + ".md"):
        if candidate in paths:
            return candidate
    named = by_name.get(target.rsplit("/", 1)[-1].lower().removesuffix(".md"), [])  # '.MD' too (s74)
    found = [named] if isinstance(named, str) else named
    if len(found) == 1 and "/" not in target:
        return found[0]
    suffix = "/" + target.lower().removesuffix(".md") + ".md"
    return next((p for p in found if ("/" + p.lower()).endswith(suffix)), None)


def _index_resolve(paths: list[str], index: PathSet, target: str) -> str | None:
    """A bare name as the link index reads it from a note at the vault's top; a path as written
    (one of case twins) first."""
    target = target.strip()
    for candidate in (target, target + ".md"):
        if candidate in paths:
            return candidate
    return index.resolve(target, "Top.md") if target else None


def _vault(seed: int) -> list[str]:
    rng = random.Random(seed)
    folders = ["", "a/", "a/b/", "B/", "c/d/e/", "Daily/"]
    names = ["Note", "note", "NOTE", "Plan", "plan.md", "x", "Émile", "2024-01-02", "a b", "Z"]
    paths = {f"{rng.choice(folders)}{rng.choice(names)}{rng.choice(['', ' 1', '2'])}.md" for _ in range(300)}
    return sorted(paths)


@pytest.mark.parametrize("seed", range(5))
def test_names_and_link_targets_resolve_as_the_dict_of_every_name_did(seed: int) -> None:
    paths = _vault(seed)
    by_name = _old_by_name(paths)
    names = Names(paths)
    for name, held in by_name.items():
        assert names.get(name) == ([held] if isinstance(held, str) else held)
    assert names.get("no such name") == []
    pageset = PageSet(paths)
    targets = [*paths, *(p.upper() for p in paths), *(p.rsplit("/", 1)[-1] for p in paths)]
    targets += [p.removesuffix(".md") for p in paths] + ["b/Note", "a/b/note 1", "E/x2", " Plan ", "", "/x"]
    index = PathSet(paths)
    for target in targets:
        if "/" in target:
            assert pageset.resolve_path(target) == _old_resolve(paths, by_name, target), target
        else:
            assert pageset.resolve_path(target) == _index_resolve(paths, index, target), target


def test_names_whose_hashes_collide_are_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = ["a/Alpha.md", "Beta.md", "c/alpha.md", "Gamma.md"]
    monkeypatch.setattr(names_module, "hash", lambda name: 7, raising=False)  # every name one hash
    names = Names(paths)
    assert names.get("alpha") == ["a/Alpha.md", "c/alpha.md"]
    assert names.get("beta") == ["Beta.md"] and names.get("delta") == []
