"""A move to a name that a link cannot hold as plain text leaves links the index still resolves.

Before, through move_note: a name with an unpaired ')' was written bare into Markdown hrefs
(`[x](C).md)`: the link ends at the ')'), a name holding '%' went into `<...>` hrefs unencoded
(`<C%25.md>`, which the index and Obsidian read percent-decoded as 'C%.md'), and a name ending
in a space went into wikilinks as `[[/Sub/Draft ]]` (a link target is read trimmed). Each left
links find_broken_links reported as broken right after the move."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

SOURCE = "# Src\n[[A B]] [[A B|alias]] ![[A B#Head]] [x](A%20B.md) [y](<A B.md>) [z](<A%20B.md#Head>)\n"


@pytest.mark.parametrize(
    ("new_path", "expected"),
    [
        (
            "Sub/C).md",
            "# Src\n[[C)]] [[C)|alias]] ![[C)#Head]] [x](C%29.md) [y](<C).md>) [z](<C).md#Head>)\n",
        ),
        (
            "Sub/C%25.md",
            "# Src\n[[C%25]] [[C%25|alias]] ![[C%25#Head]] [x](C%2525.md) [y](<C%2525.md>) [z](<C%2525.md#Head>)\n",
        ),
        (
            "Sub/Draft .md",
            "# Src\n[[Draft .md]] [[Draft .md|alias]] ![[Draft .md#Head]] [x](Draft%20.md) [y](<Draft .md>)"
            " [z](<Draft%20.md#Head>)\n",
        ),
    ],
)
async def test_links_follow_a_move_to_a_name_they_must_spell_carefully(
    make_vault: Callable[..., Path], new_path: str, expected: str
) -> None:
    root = make_vault({"A B.md": "# Head\ntext\n", "Src.md": SOURCE})
    async with started(root) as vg:
        await vg.indexed()
        assert (await vg.ok("find_broken_links"))["items"] == []
        await vg.confirmed("move_note", path="A B.md", new_path=new_path)
        await vg.settled()
        assert (root / "Src.md").read_text(encoding="utf-8") == expected
        assert (await vg.ok("find_broken_links"))["items"] == []
        backlinks = await vg.ok("get_backlinks", path=new_path)
        assert {item["path"] for item in backlinks["items"]} == {"Src.md"}
        outlinks = await vg.ok("get_outlinks", path="Src.md")
        assert [(link["path"], link["resolved"]) for link in outlinks["items"]] == [(new_path, True)] * 6
