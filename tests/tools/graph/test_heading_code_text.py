"""A heading holding inline code is indexed with its text as written: `### `hasTag()`` was indexed
as the heading '' (its code blanked), so `[[Functions#hasTag]]` (the link Obsidian writes to it,
from its help vault) was a link into no heading, and read_note by that heading found none; and
'##`x`' (no space after the marks) was a heading. An index built before reads such notes again
(migration 0033)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

FUNCTIONS = "# Functions\n\n### `hasTag()`\nTags.\n\n## Use `x` here\nX.\n\n##`x` is no heading\n"
LINKS = "[[Functions#hasTag]] [[Functions#Use x here]] [[Functions#x is no heading]]\n"
FILES = {"Functions.md": FUNCTIONS, "Links.md": LINKS}


async def _reads_code_in_headings(vg: Harness) -> None:
    broken = (await vg.ok("find_broken_links"))["items"]
    assert [(i["subpath"], i["reason"]) for i in broken] == [("x is no heading", "no_heading")]
    assert broken[0]["suggestions"][:2] == ["Use `x` here", "`hasTag()`"]
    part = await vg.ok("read_note", path="Functions#hasTag")
    assert part["content"] == "### `hasTag()`\nTags.\n"
    part = await vg.ok("read_note", path="Functions", heading=["Use `x` here"])
    assert part["content"] == "## Use `x` here\nX.\n\n##`x` is no heading\n"


async def test_headings_keep_their_inline_code(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _reads_code_in_headings(vg)


async def test_an_index_built_before_reads_its_headings_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)  # the rows as the reading before 0033 wrote them: the code blanked
    await indexed_before(root, 33, "UPDATE headings SET text = '' WHERE text = '`hasTag()`'")
    async with started(root) as vg:
        await vg.indexed()
        await _reads_code_in_headings(vg)
