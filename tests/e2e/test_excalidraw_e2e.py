"""Excalidraw drawings over real HTTP with the SDK client, in both protocol eras: a plugin-laid-out
drawing read, written back unchanged (the same bytes), added to, found by its words, and an LZ
bomb refused with its structured error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.obsidian import lzstring
from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.unit.obsidian.test_excalidraw_format import plugin_note

BOMB = lzstring.compress_to_base64('{"elements": [], "x": "' + "b" * 300_000 + '"}')
FILES: dict[str, str | bytes] = {
    "Drawings/Plan.excalidraw.md": plugin_note(),
    "Drawings/Bomb.excalidraw.md": "---\nexcalidraw-plugin: parsed\n---\n%%\n## Drawing\n```compressed-json\n"
    + BOMB
    + "\n```\n%%",
}


async def test_excalidraw_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    async with e2e(root, limits={"max_value_bytes": 100_000}) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            before = (root / "Drawings/Plan.excalidraw.md").read_bytes()
            read = await ok(client, "read_excalidraw", path="Plan", include_scene=True)
            assert read["compressed"] is True and read["by_type"] == {"text": 1, "rectangle": 1}
            same = await ok(
                client,
                "write_excalidraw",
                path="Plan",
                elements=read["scene"]["elements"],
                expected_etag=read["etag"],
            )
            assert same["changed"] is False and (root / "Drawings/Plan.excalidraw.md").read_bytes() == before
            added = await ok(
                client, "write_excalidraw", path="Plan", add=[{"type": "text", "x": 0, "y": 80, "text": "albatross"}]
            )
            assert added["text_elements"] == 2
            await harness.indexed()
            found = await ok(client, "search_text", query="albatross")
            assert [i["path"] for i in found["items"]] == ["Drawings/Plan.excalidraw.md"]
            bomb = await error(client, "read_excalidraw", path="Drawings/Bomb.excalidraw.md")
            assert bomb["code"] == "compute_budget_exceeded" and bomb["details"]["limit"] == "bytes"
            stale = await error(client, "write_excalidraw", path="Plan", elements=[], expected_etag=read["etag"])
            assert stale["code"] == "conflict"
