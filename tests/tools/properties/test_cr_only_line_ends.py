"""A note whose lines end in a carriage return alone (classic Mac OS) and that has frontmatter: its
fences are not seen, and a property edit put a second block in front of the first — the note's
`title: cr` became body text and the note began `---\\nk: v\\n---\\n---\\rtitle: cr\\r---\\r`. Now
every property edit refuses it, with the reason, and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

NOTE = b"---\rtitle: cr\rtags: [a]\r---\r# A\r- [ ] one\rtext\r"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("set_properties", {"properties": {"k": "v"}}),
        ("add_tags", {"tags": ["b"]}),
        ("remove_tags", {"tags": ["a"]}),
        ("delete_property", {"key": "title"}),
    ],
)
async def test_a_property_edit_never_adds_a_second_frontmatter_block(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault({"Mac.md": NOTE})
    async with started(root) as vg:
        await vg.indexed()
        error = await vg.err(tool, "validation_error", path="Mac.md", **args)
        assert error["details"]["reason"] == "invalid_frontmatter" and "carriage return" in error["message"]
        props = await vg.ok("get_properties", path="Mac.md")
        assert "carriage return" in props["frontmatter_error"]
    assert (root / "Mac.md").read_bytes() == NOTE
