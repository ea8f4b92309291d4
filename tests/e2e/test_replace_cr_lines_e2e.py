"""E2E (both eras, SDK client over real HTTP): replace_text's preview of a note whose lines end in
a CR alone lists each line as the note shows it (tests/reliability/test_attack_replace_cr_lines.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


async def test_a_cr_only_notes_preview_lists_its_lines(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Mac.md": "x two\ry two\rz\r"})
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        out = await ok(client, "replace_text", {"path": "Mac", "find": "two", "replace": "2"})
    assert out["lines_changed"] == 2
    assert [(c["line"], c["before"], c["after"]) for c in out["items"][0]["changes"]] == [
        (1, "x two", "x 2"),
        (2, "y two", "y 2"),
    ]
    assert (root / "Mac.md").read_bytes() == b"x two\ry two\rz\r"
