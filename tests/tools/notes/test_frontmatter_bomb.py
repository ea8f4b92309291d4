"""A YAML alias bomb (half a kilobyte standing for ~387 million values) through the dispatch
chain: in the vault it is indexed without properties and with a frontmatter error while memory
stays small; through create_note, write_note and bulk_create_notes it is refused before anything
is written; a property edit on it is refused the same way."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import parsepool
from tests.conftest import started


def alias_bomb(levels: int = 8, fan: int = 9) -> str:
    """`levels` nested levels of `fan` aliases each, under a leaf list of `fan` strings."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * fan) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]")
    lines.append("boom: [" + ", ".join([f"*a{levels}"] * fan) + "]")
    return "---\n" + "\n".join(lines) + "\n---\nbomb body marker\n"


def test_the_bomb_is_small() -> None:
    assert len(alias_bomb().encode()) < 800


async def test_an_alias_bomb_in_the_vault_is_indexed_without_properties(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Bomb.md": alias_bomb(), "Other.md": "---\nstatus: ok\n---\nplain note\n"})
    tracemalloc.start()
    try:
        async with started(root) as vg:
            await vg.indexed()
            peak = tracemalloc.get_traced_memory()[1]
            note = await vg.ok("read_note", path="Bomb.md")
            assert note["frontmatter_error"].startswith("frontmatter expands past the server's limits")
            assert note["properties"] == {}
            found = await vg.ok("search_text", query="bomb body marker")
            assert [i["path"] for i in found["items"]] == ["Bomb.md"]
            other = await vg.ok("read_note", path="Other.md")
            assert other["properties"] == {"status": "ok"} and other.get("frontmatter_error") is None
            await vg.err("set_properties", "validation_error", path="Bomb.md", properties={"x": 1})
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024  # expanding it takes gigabytes


async def test_writing_an_alias_bomb_is_refused_and_writes_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Other.md": "x\n"})) as vg:
        before = vg.snapshot()
        err = await vg.err("create_note", "validation_error", path="Bomb.md", content=alias_bomb())
        assert err["details"]["reason"] == "frontmatter_error"
        await vg.err("write_note", "validation_error", path="Bomb.md", content=alias_bomb(), mode="overwrite")
        notes = [{"path": "A.md", "content": "fine\n"}, {"path": "B.md", "content": alias_bomb()}]
        err = await vg.err("bulk_create_notes", "validation_error", notes=notes)
        assert err["details"]["field"] == "notes[1].content"
        assert vg.snapshot() == before
        # Aliases used within bounds still work.
        small = "---\nbase: &b [1, 2]\nboth: [*b, *b]\n---\nok\n"
        await vg.ok("create_note", path="Small.md", content=small)
        await vg.settled()
        assert (await vg.ok("read_note", path="Small.md"))["properties"]["both"] == [[1, 2], [1, 2]]


@pytest.mark.parametrize("workers", [0, 1])
async def test_the_index_reads_frontmatter_within_the_configured_limits(
    make_vault: Callable[..., Path], workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[limits]` reaches the frontmatter reader wherever the index parses: in a thread, or in a
    parse worker process (used from `parsepool.MIN_NOTES` changed notes on, lowered here)."""
    monkeypatch.setattr(parsepool, "MIN_NOTES", 1000)
    big = "---\nitems: [" + ", ".join(str(i) for i in range(1500)) + "]\n---\nbig\n"
    files: dict[str, str | bytes] = {"Big.md": big, "Small.md": "---\nitems: [1, 2]\n---\nsmall\n"}
    if workers:
        files |= {f"Filler/n{i:04}.md": f"filler {i}\n" for i in range(1000)}
    overrides: dict[str, Any] = {"index": {"parse_workers": workers, "watch": False}}
    async with started(make_vault(files), limits={"max_frontmatter_values": 1000}, **overrides) as vg:
        await vg.indexed()
        indexed = await vg.ok("query_jsonlogic", logic={"!!": [{"var": "properties.items"}]})
        assert [i["path"] for i in indexed["items"]] == ["Small.md"]
        note = await vg.ok("read_note", path="Big.md")
        assert note["properties"] == {} and "more than 1000 values" in note["frontmatter_error"]
    if not workers:
        async with started(make_vault(files), **overrides) as vg:
            await vg.indexed()
            assert len((await vg.ok("read_note", path="Big.md"))["properties"]["items"]) == 1500
