"""Concurrent write_excalidraw `add` calls, through the chain: on a drawing that does not exist yet
one call creates it and the others add onto it; no element a call reports added is lost."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import Harness


async def _add(vg: Harness, path: str, n: int) -> list[Any]:
    return await asyncio.gather(
        *[
            vg.call("write_excalidraw", path=path, add=[{"type": "text", "x": i * 10, "y": 0, "text": f"w{i}"}])
            for i in range(n)
        ]
    )


async def test_concurrent_write_excalidraw_add_on_a_new_drawing_loses_no_element(vg: Harness) -> None:
    first = await _add(vg, "Draw/New", 8)
    kept = {t["id"] for t in (await vg.ok("read_excalidraw", path="Draw/New"))["text_elements"]}
    assert kept == {ident for r in first if not r.is_error for ident in r.structured["added"]}  # no success lost
    assert [r.structured for r in first if r.is_error] == []
    assert sum(1 for r in first if r.structured["created"]) == 1  # one call creates it, the others add onto it
    second = await _add(vg, "Draw/New", 8)  # now it exists
    assert [r.structured for r in second if r.is_error] == []
    read = await vg.ok("read_excalidraw", path="Draw/New")
    added = {ident for r in (*first, *second) for ident in r.structured["added"]}
    assert read["elements"] == 16 and {t["id"] for t in read["text_elements"]} == added
    assert sorted(t["text"] for t in read["text_elements"]) == sorted([f"w{i}" for i in range(8)] * 2)
