"""Writes acknowledged before their index update, through the full dispatch chain.

A call from a client (an MCP session, here a stand-in request carrying an `Mcp-Session-Id`) is
answered once its file is durable; the index update is queued. The tests hold the group-commit
round at a gate, so what a call sees while an update is queued is decided by the code, never by
timing: the writing session's later index reads wait for its update (read-your-writes), other
sessions and file reads do not wait, batched rounds build the same index as one-by-one updates,
an update lost to a crash is picked up by the start-up reconcile, and concurrent writers lose
nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from service.dispatch.context import ToolResult
from service.indexer import group
from service.indexer.runner import VaultIndexer
from service.storage.db import driver
from service.vault.events import FileChange
from tests.conftest import Harness, started

NO_WATCH = {"index": {"watch": False}}  # the watcher would index the files itself: not under test


def session(sid: str) -> Any:
    """What the SDK hands the dispatcher for a request of MCP session `sid` (the parts read)."""
    return SimpleNamespace(request=SimpleNamespace(headers={"mcp-session-id": sid}), session=None)


async def call_as(vg: Harness, sid: str, tool: str, /, **args: Any) -> dict[str, Any]:
    result: ToolResult = await vg.app.dispatcher.call(
        tool, args, principal=vg.principal, transport="http", request=session(sid)
    )
    assert not result.is_error, result.structured
    assert result.structured is not None
    return result.structured


class Gate:
    """Holds every group-commit round of an indexer until opened; tells when a call starts
    waiting for a queued update (`waiting`)."""

    def __init__(self, indexer: VaultIndexer) -> None:
        self.open = asyncio.Event()
        self.waiting = asyncio.Event()
        apply = indexer._group._apply
        caught_up = indexer.caught_up

        async def held(changes: Sequence[FileChange]) -> object:
            await self.open.wait()
            return await apply(changes)

        async def watched(seq: int) -> None:
            self.waiting.set()
            await caught_up(seq)

        indexer._group._apply = held
        indexer.caught_up = watched  # type: ignore[method-assign]


async def first_of(call: Awaitable[dict[str, Any]], gate: Gate) -> tuple[asyncio.Task[dict[str, Any]], bool]:
    """Run `call` until it finishes or waits for a queued index update; (its task, whether it waited)."""
    task = asyncio.ensure_future(call)
    waiting = asyncio.ensure_future(gate.waiting.wait())
    await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    waited = waiting.done() and not task.done()
    waiting.cancel()
    return task, waited


def paths_of(found: dict[str, Any]) -> list[str]:
    return [item["path"] for item in found["items"]]


@pytest.mark.covers("search_text", "success")
async def test_the_writer_finds_its_write_at_once_others_once_it_is_indexed(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Old.md": "# Old\n"}), **NO_WATCH) as vg:
        await vg.indexed()
        indexer = vg.indexer()
        gate = Gate(indexer)
        written = await call_as(vg, "A", "create_note", path="New.md", content="# New\n\nzebrafinch\n")
        assert written["created"] and (vg.root / "New.md").is_file()
        assert indexer.queued_updates == 1  # acknowledged, not indexed yet

        # Another session is owed nothing: it answers from the index as it is.
        assert paths_of(await call_as(vg, "B", "search_text", query="zebrafinch")) == []
        # File tools of the writer read the disk and do not wait.
        read = await call_as(vg, "A", "read_note", path="New.md")
        assert "zebrafinch" in read["content"]

        search, waited = await first_of(call_as(vg, "A", "search_text", query="zebrafinch"), gate)
        assert waited, "the writer's search answered before its write was indexed"
        gate.open.set()
        assert paths_of(await search) == ["New.md"]
        assert paths_of(await call_as(vg, "B", "search_text", query="zebrafinch")) == ["New.md"]
        assert indexer.queued_updates == 0


async def test_a_name_only_the_index_knows_waits_for_the_writers_update(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Old.md": "# Old\n"}), **NO_WATCH) as vg:
        await vg.indexed()
        gate = Gate(vg.indexer())
        await call_as(
            vg, "A", "create_note", path="Deep/Kestrel.md", content="# K\n", frontmatter={"aliases": ["Hawk"]}
        )
        read, waited = await first_of(call_as(vg, "A", "read_note", path="Hawk"), gate)
        assert waited  # an alias is found through the index: read_note waits for it there
        gate.open.set()
        assert (await read)["path"] == "Deep/Kestrel.md"


async def test_a_move_right_after_writes_rewrites_the_links_they_added(make_vault: Callable[..., Path]) -> None:
    """rename_note (as move_note) plans its link rewrites from the index: the writer's queued links count."""
    async with started(make_vault({"Target.md": "# T\n"}), **NO_WATCH) as vg:
        await vg.indexed()
        gate = Gate(vg.indexer())
        await call_as(vg, "A", "create_note", path="Linker.md", content="see [[Target]]\n")
        moved, waited = await first_of(call_as(vg, "A", "rename_note", path="Target.md", new_path="Goal"), gate)
        assert waited
        gate.open.set()
        assert (await moved)["notes_rewritten"] == 1
        assert (vg.root / "Linker.md").read_text(encoding="utf-8") == "see [[Goal]]\n"


def dump(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """What the index says about the notes, without row ids and file times."""
    queries = {
        "notes": "SELECT path, folder, name, title, aliases, properties, tags, frontmatter_error, etag FROM notes",
        "text": "SELECT n.path, t.title, t.body FROM note_text t JOIN notes n ON n.id = t.note_id",
        "tags": "SELECT n.path, g.tag, g.source FROM note_tags g JOIN notes n ON n.id = g.note_id",
        "properties": "SELECT n.path, p.key, p.list_index, p.value_type, p.value_text"
        " FROM note_properties p JOIN notes n ON n.id = p.note_id",
        "links": "SELECT n.path, l.target_raw, l.target_path, l.subpath, l.alias, l.embed, l.kind, l.line"
        " FROM links l JOIN notes n ON n.id = l.src_id",
        "headings": "SELECT n.path, h.level, h.text, h.line FROM headings h JOIN notes n ON n.id = h.note_id",
        "tasks": "SELECT n.path, k.line, k.status, k.text FROM tasks k JOIN notes n ON n.id = k.note_id",
        "fts": "SELECT n.path FROM fts_words f JOIN notes n ON n.id = f.rowid WHERE fts_words MATCH 'heron'",
    }
    # the index's own SQLite library: a second copy in the process would drop the server's locks on close
    conn = driver().connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}
    finally:
        conn.close()


def index_file(vg: Harness) -> Path:
    return Path(vg.app.db.path)


WRITES: list[tuple[str, dict[str, Any]]] = [
    ("create_note", {"path": "B/one.md", "content": "# One\n\nheron [[two]] [[Hub]] #bird\n- [ ] feed\n"}),
    (
        "create_note",
        {"path": "B/two.md", "content": "# Two\n\n[[one]] [[three]] heron\n", "frontmatter": {"k": [1, 2]}},
    ),
    ("append_note", {"path": "Hub.md", "content": "links to [[B/one]] and [[missing]]\n"}),
    ("create_note", {"path": "three.md", "content": "# Three\n\nheron ^blk\n"}),
    ("patch_note", {"path": "B/one.md", "heading": ["One"], "position": "append", "content": "more [[three]]\n"}),
    ("write_note", {"path": "B/two.md", "content": "# Two again\n\n[[Hub]] heron #fish\n", "mode": "overwrite"}),
]


@pytest.mark.covers("create_note", "success")
async def test_a_batched_round_builds_the_same_index_as_one_by_one_updates(make_vault: Callable[..., Path]) -> None:
    files = {"Hub.md": "# Hub\n\n[[one]] [[three]]\n", "Other.md": "[[two]]\n"}
    async with started(make_vault(files, name="batched"), **NO_WATCH) as batched:
        await batched.indexed()
        indexer = batched.indexer()
        gate = Gate(indexer)
        for n, (tool, args) in enumerate(WRITES):  # six sessions, all acknowledged before any round
            extra = (
                {"expected_etag": (await call_as(batched, "r", "read_note", path="B/two.md"))["etag"]}
                if tool == "write_note"
                else {}
            )
            await call_as(batched, f"s{n}", tool, **args, **extra)
        assert indexer.queued_updates == len(WRITES)
        rounds = indexer._group.rounds
        gate.open.set()
        await indexer.caught_up(indexer._group.queued)
        assert indexer._group.rounds - rounds <= 2  # the first round, and all the others together
        batched_index = dump(index_file(batched))
    async with started(make_vault(files, name="single"), **NO_WATCH) as single:
        await single.indexed()
        for tool, args in WRITES:  # in-process: each write is indexed before it returns
            extra = (
                {"expected_etag": (await single.ok("read_note", path="B/two.md"))["etag"]}
                if tool == "write_note"
                else {}
            )
            await single.ok(tool, **args, **extra)
        single_index = dump(index_file(single))
    assert batched_index == single_index
    assert [p for p, _, target, *_ in batched_index["links"] if target is None] == ["Hub.md"]  # only [[missing]]


async def test_a_write_acknowledged_but_not_indexed_is_indexed_after_a_crash(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Old.md": "# Old\n"})
    monkeypatch.setattr(group, "STOP_DRAIN_S", 0.0)  # the server dies: its queued round never runs
    async with started(root, **NO_WATCH) as vg:
        await vg.indexed()
        Gate(vg.indexer())
        await call_as(vg, "A", "create_note", path="Acked.md", content="# Acked\n\nosprey\n")
        db = index_file(vg)
    assert (root / "Acked.md").read_text(encoding="utf-8") == "# Acked\n\nosprey\n"
    assert [row[0] for row in dump(db)["notes"]] == ["Old.md"]  # durable file, index without it
    async with started(root, **NO_WATCH) as again:
        await again.indexed()
        assert paths_of(await call_as(again, "A", "search_text", query="osprey")) == ["Acked.md"]


async def test_concurrent_writers_lose_nothing_and_each_finds_its_own(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Shared.md": "# Shared\n"}), **NO_WATCH) as vg:
        await vg.indexed()

        async def writer(n: int) -> None:
            for k in range(4):
                word = f"plover{n}x{k}"
                await call_as(vg, f"w{n}", "create_note", path=f"W/{n}-{k}.md", content=f"# {n} {k}\n\n{word}\n")
                await call_as(vg, f"w{n}", "append_note", path="Shared.md", content=f"- {word}\n")
                found = await call_as(vg, f"w{n}", "search_text", query=word)
                assert sorted(paths_of(found)) == sorted([f"W/{n}-{k}.md", "Shared.md"])  # both of its writes

        await asyncio.gather(*(writer(n) for n in range(12)))
        shared = (vg.root / "Shared.md").read_text(encoding="utf-8")
        assert sorted(line for line in shared.splitlines() if line.startswith("- ")) == sorted(
            f"- plover{n}x{k}" for n in range(12) for k in range(4)
        )
        listed = await call_as(vg, "z", "list_notes", folder="W", limit=100)
        assert len(listed["items"]) == 48
        indexer = vg.indexer()
        await indexer.caught_up(indexer._group.queued)
        rows = {row[0] for row in dump(index_file(vg))["notes"]}
        assert rows == {"Shared.md", *(f"W/{n}-{k}.md" for n in range(12) for k in range(4))}
        body = [b for p, _, b in dump(index_file(vg))["text"] if p == "Shared.md"]
        assert body and all(f"plover{n}x{k}" in body[0] for n in range(12) for k in range(4))
