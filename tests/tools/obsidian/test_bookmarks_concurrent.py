"""Concurrent add_bookmark and remove_bookmark calls, through the chain: every bookmark a call
reports saved (or removed) is so in .obsidian/bookmarks.json, and a call without expected_etag
applies on the latest version instead of failing with conflict."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.conftest import Harness


def _bookmarks(vg: Harness) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(vg.read(".obsidian/bookmarks.json"))["items"]
    return items


async def test_concurrent_add_bookmark_keeps_every_bookmark_it_reports_saved(vg: Harness) -> None:
    # No bookmarks.json yet: the first calls race to create it, the rest to extend it.
    calls = [vg.call("add_bookmark", type="search", query=f"q{i}") for i in range(20)]
    results = await asyncio.gather(*calls)
    errors = [r.structured for r in results if r.is_error]
    assert errors == []  # no expected_etag given: each applies on the latest version, none is a conflict
    assert sorted(item["query"] for item in _bookmarks(vg)) == sorted(f"q{i}" for i in range(20))
    ids = [r.structured["item"]["id"] for r in results if r.structured is not None]
    removed = await asyncio.gather(*[vg.call("remove_bookmark", id=ident) for ident in ids[:10]])
    assert [r.structured for r in removed if r.is_error] == []
    assert sorted(item["query"] for item in _bookmarks(vg)) == sorted(
        r.structured["item"]["query"] for r in results[10:]
    )


async def test_concurrent_add_bookmark_with_a_stale_etag_is_still_a_conflict(vg: Harness) -> None:
    etag = (await vg.ok("add_bookmark", type="search", query="first"))["etag"]
    results = await asyncio.gather(
        *[vg.call("add_bookmark", type="search", query=f"q{i}", expected_etag=etag) for i in range(4)]
    )
    codes = sorted("ok" if not r.is_error else r.structured["error"]["code"] for r in results if r.structured)
    assert codes == ["conflict", "conflict", "conflict", "ok"]  # one read `etag` and wins, the others' version is gone
    assert len(_bookmarks(vg)) == 2
