"""What `reconcile.name_capped` reads, and what it records (review R2 s64 F6).

It names `capped` the notes a warm restart did not read again, reading the notes of more bytes
than the limit's characters. (a) A multibyte note over the limit in bytes but not in characters
was read whole at every reconcile (each start, each reindex) and never recorded: it is now
remembered by its etag and read again only once changed. (b) A note edited, and indexed short
again, between its read and the record was named `capped` anyway: the index row is now looked
up again under the apply lock, in the step that records. Through the dispatch chain; the reads
are counted through a hook on the module's reader; no timings.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.indexer import reconcile
from service.indexer.runner import indexer_of
from tests.conftest import Harness, e2e, started

WITHIN = 60.0
LIMIT = 2048
CYR = "# Ж\n\n" + "жжжжжжжжж слово\n" * 120  # 1925 chars (within the limit), ~3.6 KB (over it)
BIG = "# Big\n\nearlyword\n" + "".join(f"filler line {i} of plain words\n" for i in range(200)) + "lateword\n"
SETTINGS: dict[str, Any] = {"limits": {"max_indexed_note_chars": LIMIT}, "index": {"watch": False}}


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = reconcile.read_note_file

    def reading(root: Path, path: str) -> Any:
        reads.append(path)
        return real(root, path)

    monkeypatch.setattr(reconcile, "read_note_file", reading)
    return reads


async def named(vg: Harness) -> None:
    """Wait until every `name_capped` run started so far is done (no polling on time)."""
    for vault in vg.app.vaults.values():
        ix = indexer_of(vault)
        assert ix is not None
        while runs := [t for t in ix._side_tasks if t.get_name().endswith("naming capped notes")]:
            await asyncio.gather(*runs)


async def test_a_multibyte_note_within_the_limit_is_read_once_while_unchanged(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(CYR) <= LIMIT < len(CYR.encode())
    reads = counted(monkeypatch)
    root = make_vault({"A.md": "# A\n", "Cyr.md": CYR, "Big.md": BIG})
    async with started(root, **SETTINGS) as vg:
        await vg.indexed(WITHIN)
        await named(vg)
        assert reads == ["Cyr.md"]  # Big.md was indexed capped by this process: named already
        for mode in ("sync", "full"):
            await vg.ok("reindex", mode=mode)
            await named(vg)
        assert reads == ["Cyr.md"]  # not read again while unchanged (before: once per reconcile)
        etag = (await vg.ok("read_note", path="Cyr.md"))["etag"]
        await vg.ok("write_note", path="Cyr.md", content=CYR + "ещё\n", mode="overwrite", expected_etag=etag)
        await vg.settled()
        await vg.ok("reindex", mode="sync")
        await named(vg)
        assert reads == ["Cyr.md", "Cyr.md"]  # changed: read again, once
        out = await vg.ok("search_text", query="earlyword")
        assert out["capped"] == {"count": 1, "paths": ["Big.md"], "indexed_chars": LIMIT}
    async with started(root, **SETTINGS) as vg:  # a new process: read once more, then remembered
        await vg.indexed(WITHIN)
        await named(vg)
        await vg.ok("reindex", mode="sync")
        await named(vg)
        assert sorted(reads[2:]) == ["Big.md", "Cyr.md"]
        out = await vg.ok("search_text", query="слово")
        assert [i["path"] for i in out["items"]] == ["Cyr.md"]
        assert (await vg.ok("search_text", query="earlyword"))["capped"]["paths"] == ["Big.md"]


def edited_while_read(monkeypatch: pytest.MonkeyPatch, box: dict[str, Any], ready: threading.Event) -> None:
    """name_capped's read of a note returns the text it read after `box["edit"](path)` ran on
    the server's loop (the note made short, and the index updated)."""
    real = reconcile.read_note_file

    def reading(root: Path, path: str) -> Any:
        item = real(root, path)
        assert ready.wait(WITHIN)
        asyncio.run_coroutine_threadsafe(box["edit"](path), box["loop"]).result(WITHIN)
        box["edited"] = True
        return item

    monkeypatch.setattr(reconcile, "read_note_file", reading)


async def test_a_note_indexed_short_between_the_read_and_the_record_is_not_named(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"A.md": "# A\n", "Big.md": BIG})
    async with started(root, **SETTINGS) as vg:
        await vg.indexed(WITHIN)
        assert (await vg.ok("search_text", query="earlyword"))["capped"]["paths"] == ["Big.md"]

    # On the warm restart, name_capped reads Big.md; while the read is in its thread, a client
    # makes the note short and the index takes it; then the read (of the long text) returns.
    box: dict[str, Any] = {}
    ready = threading.Event()
    edited_while_read(monkeypatch, box, ready)
    async with started(root, **SETTINGS) as vg:

        async def edit(path: str) -> None:
            etag = (await vg.ok("read_note", path=path))["etag"]
            await vg.ok("write_note", path=path, content="# Big\n\nshort now\n", mode="overwrite", expected_etag=etag)
            await vg.settled()

        box["edit"], box["loop"] = edit, asyncio.get_running_loop()
        ready.set()
        await vg.indexed(WITHIN)
        await named(vg)
        assert box.get("edited") is True
        assert (await vg.ok("read_note", path="Big.md"))["content"] == "# Big\n\nshort now\n"
        assert (await vg.ok("search_text", query="earlyword")).get("capped") is None
        assert (await vg.ok("index_status")).get("file_warnings") is None


async def test_over_http_a_note_made_short_during_the_read_is_not_named(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on a real uvicorn server, the note edited and searched with the SDK client."""
    root = make_vault({"A.md": "# A\n", "Big.md": BIG})
    async with started(root, **SETTINGS) as vg:
        await vg.indexed(WITHIN)
    box: dict[str, Any] = {}
    ready = threading.Event()
    edited_while_read(monkeypatch, box, ready)
    async with e2e(root, **SETTINGS) as (url, vg), Client(url) as client:

        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(tool, args)
            assert not result.is_error and result.structured_content is not None, result
            return result.structured_content

        async def edit(path: str) -> None:
            etag = (await call("read_note", {"path": path}))["etag"]
            args = {"path": path, "content": "# Big\n\nshort now\n", "mode": "overwrite", "expected_etag": etag}
            await call("write_note", args)
            await vg.settled()

        box["edit"], box["loop"] = edit, asyncio.get_running_loop()
        ready.set()
        await vg.indexed(WITHIN)
        await named(vg)
        assert box.get("edited") is True
        out = await call("search_text", {"query": "short"})
        assert [i["path"] for i in out["items"]] == ["Big.md"] and out.get("capped") is None
        assert (await call("index_status", {})).get("file_warnings") is None
