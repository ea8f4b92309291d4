"""Reading tools, property writes and graph tools as a user meets them (H3, session 75): a real
uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok


async def test_properties_are_written_as_obsidian_writes_them(make_vault: Callable[..., Path], mode: str) -> None:
    """set_properties / add_tags on a note without frontmatter wrote `- item` unindented and
    `'[[Link]]'` single-quoted; Obsidian writes `  - "[[Link]]"` and rewrote our output on its next
    save (diff churn in synced or versioned vaults)."""
    vault = make_vault({"Notes/Kyoto.md": "# Kyoto\n"})
    async with e2e(vault, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await _ok(c, "set_properties", path="kyoto", properties={"categories": ["[[Places]]"], "episode": "145"})
        await _ok(c, "add_tags", path="kyoto", tags=["places/cities"])
        text = (vault / "Notes/Kyoto.md").read_text()
        assert text == '---\ncategories:\n  - "[[Places]]"\nepisode: "145"\ntags:\n  - places/cities\n---\n# Kyoto\n'
