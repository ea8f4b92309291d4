"""Concurrent write_canvas calls to a path with no canvas yet, through the chain: one creates it,
the others never replace it (no etag, no human's confirmation) but answer conflict, already_exists
or elicit_required, as a replace made after it would."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.conftest import Harness


async def test_concurrent_write_canvas_to_a_new_path_never_replaces_the_created_canvas(vg: Harness) -> None:
    def nodes(i: int) -> list[dict[str, Any]]:
        return [{"id": f"n{i}", "type": "text", "text": f"t{i}", "x": 0, "y": 0, "width": 10, "height": 10}]

    for k in range(4):
        path = f"C/new{k}"
        results = await asyncio.gather(*[vg.call("write_canvas", path=path, nodes=nodes(i)) for i in range(6)])
        wins = [i for i, r in enumerate(results) if not r.is_error]
        assert len(wins) == 1 and results[wins[0]].structured["created"] is True
        codes = {r.structured["error"]["code"] for r in results if r.is_error}
        assert codes <= {"conflict", "already_exists", "elicit_required"}
        saved = json.loads(vg.read(f"{path}.canvas"))
        assert [n["id"] for n in saved["nodes"]] == [f"n{wins[0]}"]  # the creator's canvas, not replaced
        await vg.err("write_canvas", "elicit_required", path=path, nodes=nodes(9))  # as a sequential replace
