"""The in-memory note names (`service.indexer.names`): read once, patched with the paths each
index round touched, read whole again when a round says "anything"; reads serialised; after
random rounds the patched list holds what a read from scratch would."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from service.indexer.names import MAX_TOUCHED, NoteNames


@dataclass(frozen=True)
class Name:
    path: str
    aliases: tuple[str, ...] = ()


class Rows:
    """Stands in for the notes table; records what each read asked for."""

    def __init__(self, *paths: str) -> None:
        self.rows = {p: Name(p) for p in paths}
        self.asked: list[list[str] | None] = []
        self.gate: asyncio.Event | None = None
        self.fail = False

    async def load(self, paths: Sequence[str] | None) -> list[Name]:
        self.asked.append(None if paths is None else list(paths))
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise RuntimeError("disk I/O error")
        if paths is None:
            return list(self.rows.values())
        return [self.rows[p] for p in paths if p in self.rows]


def paths(names: list[Name]) -> set[str]:
    return {n.path for n in names}


async def test_read_once_then_patched_with_the_touched_paths_only() -> None:
    rows, names = Rows("a.md", "b.md", "c.md"), NoteNames[Name]()
    assert paths(await names.get(rows.load)) == {"a.md", "b.md", "c.md"}
    assert await names.get(rows.load) is await names.get(rows.load)  # nothing touched: no read
    assert rows.asked == [None]

    del rows.rows["b.md"]
    rows.rows["d.md"] = Name("d.md")
    rows.rows["a.md"] = Name("a.md", ("Alpha",))
    names.touched(["b.md", "d.md", "a.md"])
    got = await names.get(rows.load)
    assert rows.asked[-1] == ["a.md", "b.md", "d.md"]
    assert paths(got) == {"a.md", "c.md", "d.md"}
    assert Name("a.md", ("Alpha",)) in got
    assert (names.full_reads, names.partial_reads) == (1, 1)


async def test_anything_or_too_many_touched_reads_everything_again() -> None:
    rows, names = Rows("a.md"), NoteNames[Name]()
    await names.get(rows.load)
    names.touched(["a.md"])
    names.touched(None)  # a bulk reconcile
    rows.rows["z.md"] = Name("z.md")
    assert paths(await names.get(rows.load)) == {"a.md", "z.md"} and rows.asked[-1] is None
    names.touched(f"n{i}.md" for i in range(MAX_TOUCHED + 1))
    await names.get(rows.load)
    assert rows.asked[-1] is None and names.full_reads == 3


async def test_a_round_during_a_read_is_read_next_time_and_no_caller_sees_a_half_patch() -> None:
    rows, names = Rows("a.md"), NoteNames[Name]()
    await names.get(rows.load)
    rows.rows["b.md"] = Name("b.md")
    names.touched(["b.md"])
    rows.gate = asyncio.Event()
    first = asyncio.create_task(names.get(rows.load))
    await asyncio.sleep(0)
    second = asyncio.create_task(names.get(rows.load))  # waits for the read in flight
    await asyncio.sleep(0)
    rows.rows["c.md"] = Name("c.md")
    names.touched(["c.md"])  # committed while the first read runs
    rows.gate.set()
    assert paths(await first) >= {"a.md", "b.md"}
    assert paths(await second) == {"a.md", "b.md", "c.md"}
    assert rows.asked[1:] == [["b.md"], ["c.md"]]


async def test_a_failed_read_forgets_everything() -> None:
    rows, names = Rows("a.md"), NoteNames[Name]()
    await names.get(rows.load)
    names.touched(["a.md"])
    rows.fail = True
    with pytest.raises(RuntimeError):
        await names.get(rows.load)
    rows.fail = False
    rows.rows["b.md"] = Name("b.md")
    assert paths(await names.get(rows.load)) == {"a.md", "b.md"} and rows.asked[-1] is None


@pytest.mark.parametrize("seed", range(5))
async def test_after_random_rounds_the_patched_names_are_those_read_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    pool = [f"{folder}{i}.md" for folder in ("", "Sub/", "Deep/x/") for i in range(30)]
    rows, names = Rows(*rng.sample(pool, 40)), NoteNames[Name]()
    await names.get(rows.load)
    for step in range(300):
        touched = rng.sample(pool, rng.randint(1, 6))
        for path in touched:
            kind = rng.random()
            if kind < 0.35:
                rows.rows.pop(path, None)  # deleted (or a path the index never held)
            else:  # created or changed: its aliases change
                rows.rows[path] = Name(path, (f"a{step}",) if kind < 0.7 else ())
        names.touched(touched)
        if rng.random() < 0.6:  # rounds between two reads add up
            got = await names.get(rows.load)
            assert len(got) == len({n.path for n in got}), step
            assert sorted(got, key=lambda n: n.path) == sorted(rows.rows.values(), key=lambda n: n.path), step
    assert names.full_reads == 1 and names.partial_reads > 100


async def test_the_notes_named_with_a_hash_or_a_bar_follow_every_change_of_the_list() -> None:
    """`holding` (what `or_by_name` scans) is kept between calls, and made again after a seed, a
    cold load's stored note, a patch, a full read and a failed read."""
    rows, names = Rows("a.md", "T/Odd#hash.md"), NoteNames[Name]()
    await names.seed([Name("T/Odd#hash.md"), Name("a.md")])
    assert paths(names.holding()) == {"T/Odd#hash.md"} and names.holding() is names.holding()
    names.stored([Name("U/Odd|pipe.md")], ["U/Odd|pipe.md"])  # a cold load's batch, put in place
    assert paths(names.holding()) == {"T/Odd#hash.md", "U/Odd|pipe.md"}
    del rows.rows["T/Odd#hash.md"]
    rows.rows["V/New#1.md"] = Name("V/New#1.md")
    names.touched(["T/Odd#hash.md", "V/New#1.md"])
    await names.get(rows.load)  # patched
    assert paths(names.holding()) == {"U/Odd|pipe.md", "V/New#1.md"}
    names.touched(None)
    await names.get(rows.load)  # read whole: the index's notes only
    assert paths(names.holding()) == {"V/New#1.md"}
    rows.fail = True
    names.touched(None)
    with pytest.raises(RuntimeError):
        await names.get(rows.load)
    assert names.holding() == []
