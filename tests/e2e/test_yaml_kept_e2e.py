"""E2E (both eras, SDK client over real HTTP): set_properties of one property keeps the others as
written — a `!!str` tag, a float with more digits than a double holds, a time with nanoseconds —
and the note's properties stay readable (tests/reliability/test_attack_yaml_kept.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.reliability.test_attack_yaml_kept import KEPT, NOTE


async def test_set_properties_keeps_the_other_lines(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"N.md": NOTE})
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        before = await ok(client, "get_properties", {"path": "N"})
        await ok(client, "set_properties", {"path": "N", "properties": {"new": 1}})
        after = await ok(client, "get_properties", {"path": "N"})
    lines = (root / "N.md").read_text(encoding="utf-8").split("\n")
    assert [line for line in KEPT if line not in lines] == []
    assert after["frontmatter_error"] is None
    assert {k: v for k, v in after["properties"].items() if k != "new"} == before["properties"]
