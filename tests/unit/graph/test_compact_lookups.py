"""The path lookups a server holds for good answer as the structures they replaced did.

`PathSet` finds an exact path in its name's bucket (no table of lower-case paths), `KnownFiles`
tests membership by binary search (no set), `NoteName` holds the lower-case file name only and
`NoteNames` keeps its list sorted (no dict of places). Each is compared here with a reference
written as the old structure was — dicts of lower-case keys, a set, every lower-case form held —
on generated vaults with case twins, one name in several folders, non-ASCII names whose lower
case is longer ('İ'), attachments, files without a suffix and names ending in '.md.md'."""

from __future__ import annotations

import asyncio
import posixpath
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pytest

from service.graph import linkpath
from service.graph.address import NOTHING, NoteName, Resolution, _decide, resolve_address
from service.graph.linkpath import PathSet, base_name, form_of, strip_md
from service.indexer.known import MANY, KnownFiles
from service.indexer.names import NoteNames
from tests.unit.graph.test_pathset_layers import changes

FOLDERS = ["", "Projects/", "projects/", "PROJECTS/Sub/", "Notes/Sub/", "a/b/", "Ü/", "İstanbul/", "x.md/"]
NAMES = ["Plan.md", "plan.md", "PLAN.md", "Idea.md", "İdea.md", "ünï.md", "ÜNÏ.md", "photo.png", "Plan", "x.md.md"]
NAMES += ["Plan.md.md", "Readme", "2026-11-29.md", "a b.md"]
SOURCES = ["Welcome.md", "Notes/Sub/Idea.md", "Projects/Plan.md", "a/b/x.md", "Ü/y.md"]


class Reference(PathSet):
    """The PathSet as it was: a table of lower-case paths beside the one of names' lists."""

    def __init__(self, paths: Iterable[str], *, ordered: bool = False) -> None:
        self.keys: dict[str, str] = {}
        self.names: dict[str, list[str]] = defaultdict(list)
        for path in sorted(set(paths)):
            self.keys.setdefault(path.lower(), path)
            self.names[base_name(path).lower()].append(path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path.lower() in self.keys

    def paths(self) -> list[str]:
        return list(self.keys.values())

    def _exact(self, candidate: str) -> str | None:
        key = posixpath.normpath(candidate).lower() if candidate else ""
        if key.startswith("../") or key in ("", ".", ".."):
            return None
        return self.keys.get(key) or self.keys.get(key + ".md")

    def by_name(self, name: str) -> list[str]:
        key = name.lower()
        return [*self.names.get(key, ()), *self.names.get(key + ".md", ())]

    def is_unique_name(self, target: str) -> bool:
        return len(self.names.get(base_name(target).lower(), ())) == 1


def _probes(paths: Sequence[str]) -> list[str]:
    """Link texts and exact paths to ask about: each path in several spellings, and names."""
    out = ["", "/", "..", "../Plan", "./Plan", "Plan", "plan.md", "Sub/Idea", "/Projects/Plan", "Nothing"]
    for path in paths:
        stem = strip_md(path)
        name = base_name(path)
        out += [path, path.upper(), path.lower(), stem, stem.swapcase(), name, strip_md(name), "/" + stem]
        out += ["./" + name, "../" + name, stem.rpartition("/")[2].upper(), f"{stem}/", "Sub/" + name]
    return out


def _answers(paths: PathSet, probes: list[str]) -> tuple[object, ...]:
    resolved = tuple(paths.resolve(p, s) for p in probes for s in SOURCES)
    exact = tuple(paths.exact(p) for p in probes)
    named = tuple(tuple(paths.by_name(strip_md(base_name(p)))) for p in probes)
    inside = tuple(p in paths for p in probes)
    unique = tuple(paths.is_unique_name(p) for p in probes if p)
    return resolved, exact, named, inside, unique, sorted(paths.paths())


def _link_texts(paths: PathSet, targets: list[str]) -> tuple[str, ...]:
    return tuple(
        paths.link_text(t, s, form_of(raw, t)) for t in targets for s in SOURCES for raw in ("x", "a/x", "./x", "x.md")
    )


@pytest.mark.parametrize("seed", range(8))
def test_the_path_set_answers_as_the_old_tables(seed: int) -> None:
    rng = random.Random(seed)
    every = [f"{f}{n}" for f in FOLDERS for n in NAMES]
    chosen = rng.sample(every, rng.randint(1, len(every)))
    probes = _probes(rng.sample(every, 25))
    new, old = PathSet(chosen), Reference(chosen)
    assert _answers(new, probes) == _answers(old, probes)
    targets = rng.sample(chosen, min(10, len(chosen)))
    assert _link_texts(new, targets) == _link_texts(old, targets)
    assert _answers(PathSet(sorted(set(chosen)), ordered=True), probes) == _answers(old, probes)


@pytest.mark.parametrize("flatten", [2, 4096])
def test_changed_versions_answer_as_the_old_tables_of_their_paths(
    monkeypatch: pytest.MonkeyPatch, flatten: int
) -> None:
    monkeypatch.setattr(linkpath, "FLATTEN", flatten)
    rng = random.Random(5)
    every = [f"{f}{n}" for f in FOLDERS for n in NAMES]
    probes = _probes(rng.sample(every, 12))
    before = None
    for earlier, current, present in changes(rng, every, start=40, steps=60, most=4):
        if before is not None:
            assert _answers(earlier, probes) == before  # the earlier version is left as it was
        before = _answers(current, probes)
        assert before == _answers(Reference(present), probes)


def _under(files: set[str], folder: str) -> list[str]:
    prefix = folder.rstrip("/") + "/"
    return sorted(f for f in files if f.startswith(prefix))


@pytest.mark.parametrize("seed", range(4))
def test_known_files_answer_as_a_set(seed: int) -> None:
    rng = random.Random(seed)
    every = [f"{f}{n}" for f in FOLDERS for n in NAMES]
    held = set(rng.sample(every, 50))
    known = KnownFiles(sorted(held))
    for _ in range(80):
        many = rng.random() < 0.2
        batch = rng.sample(every, MANY + 3 if many else rng.randint(0, 4))
        if rng.random() < 0.5:
            known.add(batch)
            held |= set(batch)
        else:
            known.discard(batch)
            held -= set(batch)
        assert len(known) == len(held) and list(known) == sorted(held) == known.ordered()
        assert [p in known for p in every] == [p in held for p in every]
        assert 3 not in known and "" not in known and "zzz" not in known
        for folder in [*FOLDERS, "Projects", "Notes", "a"]:
            assert known.under(folder) == _under(held, folder)


def _old_resolve(target: str, notes: list[NoteName]) -> Resolution:
    """`resolve_address`'s path and name rules as they were, over every lower-case form held."""
    stem = strip_md(target.strip().strip("/"))
    if not stem:
        return NOTHING
    low = stem.lower()
    tail = "/" + low if "/" in stem else None
    path_hits, name_hits = [], []
    for note in notes:
        note_low = strip_md(note.path).lower()
        if note_low == low:
            path_hits.append((note.path, strip_md(note.path)))
        elif tail is not None:
            if note_low.endswith(tail):
                name_hits.append((note.path, strip_md(note.path)[-len(stem) :]))
        elif note_low.rpartition("/")[2] == low:
            name_hits.append((note.path, strip_md(note.path).rpartition("/")[2]))
    for hits, rule in ((path_hits, "path"), (name_hits, "name")):
        found = _decide(hits, stem, rule)  # type: ignore[arg-type]
        if found.total:
            return found
    return _decide(
        [(n.path, a) for n in notes for a in n.aliases if a.lower() == target.strip().lower()], target.strip(), "alias"
    )


@pytest.mark.parametrize("seed", range(6))
def test_addresses_resolve_as_with_every_lower_case_form_held(seed: int) -> None:
    rng = random.Random(seed)
    notes_only = [n for n in NAMES if n.endswith(".md")]
    every = [f"{f}{n}" for f in FOLDERS for n in notes_only]
    notes = [
        NoteName(p, tuple(rng.sample(["Home", "home", "Old/Plan", "İdea"], rng.randint(0, 1))))
        for p in rng.sample(every, 45)
    ]
    for target in _probes(rng.sample(every, 20)) + ["Home", "HOME", "Old/Plan", "idea", "Ü/ünï", "sub/idea"]:
        assert resolve_address(target, notes, lambda _p: True) == _old_resolve(target, notes), target


@dataclass(frozen=True)
class Row:
    path: str
    aliases: tuple[str, ...] = ()


def test_note_names_stay_sorted_and_equal_to_a_read_from_scratch() -> None:
    rng = random.Random(3)
    pool = [f"{f}{n}" for f in FOLDERS for n in NAMES if n.endswith(".md")]
    rows = {p: Row(p) for p in rng.sample(pool, 30)}

    async def load(paths: Sequence[str] | None) -> list[Row]:
        listed = list(rows.values()) if paths is None else [rows[p] for p in paths if p in rows]
        rng.shuffle(listed)  # the table's order is no promise
        return listed

    async def run() -> None:
        names: NoteNames[Row] = NoteNames()
        await names.get(load)
        for step in range(200):
            touched = rng.sample(pool, MANY + 1 if rng.random() < 0.1 else rng.randint(1, 5))
            for path in touched:
                if rng.random() < 0.4:
                    rows.pop(path, None)
                else:
                    rows[path] = Row(path, (f"a{step}",))
            names.touched(touched)
            got = await names.get(load)
            assert got == sorted(rows.values(), key=lambda r: r.path), step
        assert names.full_reads == 1

    asyncio.run(run())
