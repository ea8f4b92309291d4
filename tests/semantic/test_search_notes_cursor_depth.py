"""search_notes' semantic and hybrid pages reached by `next_cursor` go as deep as those reached
by `offset`. The vector ranking is `hybrid.depth(offset + limit)` chunks deep, and the offset it
was given was `args.offset`, 0 on every page asked for by cursor: paging kepano's vault plus the
Obsidian Help notes (282 notes) by cursor, 9 a page, ended after 102 notes (semantic) and 120
(hybrid) while the same pages by offset reached all 282 (found by U7, session 74, with the MCP
TypeScript SDK client). Here: 450 one-chunk notes, 20 a page, whose first pages' 400 nearest
chunks (`semantic.search.nearest`, 4 x depth(20)) hold 400 notes.

Vectors come from the local stand-in of the Ollama API (tests/semantic/standin.py: bags of hashed
words), not the built-in model: the depth of the rankings is under test, not the model, and 450
notes through the built-in model took 125 s a case at load 15-20 on 2 cores (once past the 120 s
wait for the embedding job)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started
from tests.semantic.helpers import settled
from tests.semantic.standin import stand_in

TOPICS = ("garden", "bread", "taxes", "bicycle", "piano", "kitten")
VAULT = {
    f"Notes/N{i:03}.md": f"# Note {i}\n\nA short note about {TOPICS[i % len(TOPICS)]} number {i}.\n" for i in range(450)
}


async def _paged(h: Harness, mode: str, **by: int) -> list[str]:
    paths: list[str] = []
    cursor: str | None = None
    for _ in range(60):
        args: dict[str, object] = {"query": "a note about the garden", "mode": mode, "limit": 20}
        if "offset" in by:
            args["offset"] = len(paths)
        elif cursor is not None:
            args["cursor"] = cursor
        out = await h.ok("search_notes", **args)
        paths += [i["path"] for i in out["items"]]
        cursor = out["next_cursor"]
        if cursor is None:
            break
    return paths


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
async def test_cursor_pages_reach_every_note(make_vault: Callable[..., Path], mode: str) -> None:
    async with stand_in(dim=1024) as server:
        embeddings = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0}
        async with started(make_vault(VAULT), embeddings=embeddings) as h:
            await settled(h)
            by_cursor = await _paged(h, mode)
            by_offset = await _paged(h, mode, offset=1)
            assert len(by_cursor) == len(set(by_cursor)) == len(VAULT), len(by_cursor)
            assert by_cursor == by_offset
