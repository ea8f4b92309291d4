"""A property written as a literal block (by Obsidian, or by set_properties since cef82e3c) keeps
its block style on a later edit only while the new text can be a block. A CR, a form feed or
another control character, U+2028 / U+2029, or a last line of blanks were written raw inside the
kept `|-` block: the call answered ok, and then get_properties answered {} with a frontmatter
error and every later set_properties of the note was refused (R6's s76 review of cef82e3c). Such a
text is now written double-quoted, as a new value is; a single line is written as a new value is
too. Through the whole dispatch chain; each value is read back exactly by get_properties."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

BLOCK = "---\ntitle: t\np: |-\n  x\n  y\n---\n# N\n"  # as Obsidian writes a text of two lines


@pytest.mark.parametrize(
    "value", ["a\u2028b\nc", "a\u2029b\nc", "a\x85b\nc", "a\r\nb", "a\rb\nc", "a\x0cb\nc", "a\x1cb\nc", "a\n  "]
)
async def test_a_block_is_kept_only_for_a_text_a_block_can_hold(make_vault: Callable[..., Path], value: str) -> None:
    async with started(make_vault({"N.md": BLOCK})) as vg:
        await vg.indexed()
        await vg.ok("set_properties", path="N", properties={"p": value})
        got = await vg.ok("get_properties", path="N")
        assert got["properties"] == {"title": "t", "p": value} and not got.get("frontmatter_error"), got
        await vg.ok("set_properties", path="N", properties={"q": "later"})  # the note is still editable
        assert (await vg.ok("get_properties", path="N"))["properties"]["p"] == value


async def test_a_block_holds_a_new_text_of_several_lines_and_a_single_line_is_plain(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"N.md": BLOCK})) as vg:
        await vg.indexed()
        await vg.ok("set_properties", path="N", properties={"p": "first\nsecond"})
        assert "p: |-\n  first\n  second\n" in vg.read("N.md")
        await vg.ok("set_properties", path="N", properties={"p": "one line"})
        assert "p: one line\n" in vg.read("N.md")
        assert (await vg.ok("get_properties", path="N"))["properties"]["p"] == "one line"
