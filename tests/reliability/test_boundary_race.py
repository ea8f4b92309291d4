"""The vault boundary under a folder<->symlink swap, over a real server and the SDK client: while a
thread keeps exchanging `Race/` with a symlink to a folder outside the vault, clients create,
append, write, move and delete notes under `Race/`; nothing outside changes and every answer is
structured, and search finds no outside text (the index read none). (The in-process variant,
tests/tools/notes/test_boundary_race.py, covers the same tools through the dispatch chain; these go
through HTTP and through a spawned stdio server.)
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.conftest import e2e, snapshot
from tests.tools.notes.test_boundary_race import flipping, outside_files

ROUNDS = 15


async def one_round(client: Client, i: int) -> list[str]:
    calls = [
        client.call_tool("create_note", {"path": f"Race/new{i}.md", "content": "# new\n"}),
        client.call_tool("append_note", {"path": "Race/a.md", "content": f"line {i}"}),
        client.call_tool("write_note", {"path": f"Race/w{i}.md", "content": "# w\n", "mode": "create"}),
        client.call_tool("move_note", {"path": f"Race/m{i}.md", "new_path": f"Race/Moved/m{i}.md"}),
        client.call_tool("delete_note", {"path": f"Race/d{i}.md"}),
    ]
    codes: list[str] = []
    for result in await asyncio.gather(*calls):
        if result.is_error:
            assert result.structured_content is not None, result
            codes.append(result.structured_content["error"]["code"])
    return codes


def race_vault(make_vault: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    inside = {f"Race/{name}": text.replace("outside", "inside") for name, text in outside_files().items()}
    root = make_vault({**inside, "Home.md": "# home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, text in outside_files().items():
        (outside / name).write_text(text, encoding="utf-8")
    return root, outside


def assert_structured(codes: list[str]) -> None:
    assert "internal_error" not in codes, codes
    assert set(codes) <= {"path_invalid", "note_not_found", "already_exists", "conflict", "elicit_required"}, codes


async def test_no_write_escapes_through_a_folder_swapped_for_a_symlink_over_http(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root, outside = race_vault(make_vault, tmp_path)
    before = snapshot(outside)
    codes: list[str] = []
    async with e2e(root, index={"watch": False}, throttle={"enabled": False}) as (url, vg), Client(url) as client:
        with flipping(root, outside):
            for i in range(ROUNDS):
                codes += await one_round(client, i)
        # nothing outside was read either: a write's index update never reads through the link (459b9f44)
        await vg.settled()
        found = await client.call_tool("search_text", {"query": "outside"})
        assert found.structured_content is not None and found.structured_content["items"] == [], found
    assert snapshot(outside) == before
    assert_structured(codes)


async def test_no_write_escapes_through_a_folder_swapped_for_a_symlink_over_stdio(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root, outside = race_vault(make_vault, tmp_path)
    before = snapshot(outside)
    codes: list[str] = []
    env = {**os.environ, "VAULTGATE_THROTTLE__ENABLED": "false", "VAULTGATE_INDEX__WATCH": "false"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    async with Client(params) as client:
        with flipping(root, outside):
            for i in range(ROUNDS):
                codes += await one_round(client, i)
    assert snapshot(outside) == before
    assert_structured(codes)
