"""get_active_note of a note longer than an answer may be: the overflow's hint names what the
agent can do (include_content: false, then read_note by line range), not only the operator's
setting. It said "get_active_note answers whole ... an operator can raise
governor.max_response_bytes", though the tool takes `include_content` (U10's s76 find: a 1.9 MB
note in focus). Through the whole dispatch chain against the Local REST API stand-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


async def test_a_long_active_note_overflows_with_a_hint_the_agent_can_follow(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    text = "# Long\n\n" + "A line of the long note that Obsidian shows.\n" * 50_000  # ~2.3 MB
    active = {"path": "Long.md", "content": text, "frontmatter": {}, "tags": [], "stat": None}
    async with bridged(make_vault, tmp_path, Obsidian(active=active)) as (vg, _):
        result = await vg.call("get_active_note")
        assert result.is_error and result.structured is not None
        error = result.structured["error"]
        assert error["code"] == "overflow", error
        assert "include_content: false" in error["hint"] and "read_note" in error["hint"], error
        assert "operator" not in error["hint"], error
        small = await vg.ok("get_active_note", include_content=False)
        assert small["path"] == "Long.md" and not small.get("content"), small
