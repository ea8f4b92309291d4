"""Writes acknowledged before their index update, over real HTTP with the SDK client, both eras.

The index round is held at a gate (as in tests/tools/notes/test_own_writes.py), so what each
call sees is decided by the code: the write answers while its index update is queued, the
writer's own search waits for it and finds the note; another client of the older era (its own
MCP session) answers from the index as it is, while in the sessionless era every anonymous
client is one caller and waits too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.notes.test_own_writes import NO_WATCH, Gate, first_of


async def test_the_writer_finds_its_write_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Old.md": "# Old\n"}), **NO_WATCH) as (url, h):
        await h.indexed()
        indexer = h.indexer()
        gate = Gate(indexer)
        async with Client(url, mode=mode) as writer, Client(url, mode=mode) as other:  # type: ignore[arg-type]
            made = await ok(writer, "create_note", path="Wren.md", content="# Wren\n\nwrenword\n")
            assert made["created"] and indexer.queued_updates == 1  # answered before the index has it
            theirs, waited = await first_of(ok(other, "search_text", query="wrenword"), gate)
            if mode == "legacy":  # its own session: owed nothing
                assert not waited and (await theirs)["items"] == []
            else:  # no session: one anonymous caller, so it waits as the writer does
                assert waited
            gate.waiting.clear()
            mine, waited = await first_of(ok(writer, "search_text", query="wrenword"), gate)
            assert waited or mode != "legacy"
            gate.open.set()
            assert [i["path"] for i in (await mine)["items"]] == ["Wren.md"]
            if mode != "legacy":
                assert [i["path"] for i in (await theirs)["items"]] == ["Wren.md"]
