"""Session 76, find_similar of a canvas over real HTTP with the SDK client (both eras), embeddings
off: not_a_note with details.kind 'canvas' and a hint naming graph_neighbors, which takes the
canvas (it answered mode_unavailable before looking at the path)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.semantic.test_find_similar_not_a_note import BOARD, FILES


async def test_find_similar_of_a_canvas_names_the_tools_that_take_it(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            err = await error(client, "find_similar", {"path": BOARD})
            assert err["code"] == "not_a_note" and err["details"]["kind"] == "canvas", err
            assert "graph_neighbors" in err["hint"], err
            by_name = await error(client, "find_similar", {"path": "Pets.canvas"})  # as an embed names it
            assert by_name["code"] == "not_a_note" and by_name["details"] == {
                "path": BOARD,
                "kind": "canvas",
                "read_with": "read_canvas",
            }
            neighbours = await ok(client, "graph_neighbors", {"path": BOARD})
            assert "Pets/Cats.md" in {n["path"] for n in neighbours["items"]}
            off = await error(client, "find_similar", {"path": "Cats"})
            assert off["code"] == "mode_unavailable", off
