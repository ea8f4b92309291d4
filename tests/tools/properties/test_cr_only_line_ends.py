"""A note whose lines end in a carriage return alone (classic Mac OS) and that has frontmatter: its
fences were not seen, and a property edit put a second block in front of the first — the note's
`title: cr` became body text and the note began `---\\nk: v\\n---\\n---\\rtitle: cr\\r---\\r`; later
every property edit refused it. Obsidian's editor reads a lone CR as a line end, so a property edit
now changes its one frontmatter block, on the note's LF form, and writes it back with CR line ends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

NOTE = b"---\rtitle: cr\rtags: [a]\r---\r# A\r- [ ] one\rtext\r"


@pytest.mark.parametrize(
    ("tool", "args", "after"),
    [
        ("set_properties", {"properties": {"k": "v"}}, b"---\rtitle: cr\rtags: [a]\rk: v\r---\r"),
        ("add_tags", {"tags": ["b"]}, b"---\rtitle: cr\rtags: [a, b]\r---\r"),
        ("remove_tags", {"tags": ["a"]}, b"---\rtitle: cr\r---\r"),
        ("delete_property", {"key": "title"}, b"---\rtags: [a]\r---\r"),
    ],
)
async def test_a_property_edit_changes_the_one_block_and_keeps_cr_line_ends(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], after: bytes
) -> None:
    root = make_vault({"Mac.md": NOTE})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok(tool, path="Mac.md", **args)
    assert (root / "Mac.md").read_bytes() == after + b"# A\r- [ ] one\rtext\r"
