"""Tags after an HTML comment block that ended with its list item or quote are tags. `- <!--`
opens a comment block that ends at `-->` or where the item ends (CommonMark; fences.Comments,
0031), but the tracker that masks comments for tags ran on to the next `-->`: in `- <!--` then
`- [ ] next #later` at the margin the task counted and its #later was no tag, for list_tags and
for rename_tag alike. An index built before reads such notes again (migration 0034)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

NOTE = (
    "# N\n\n"
    "- <!-- a comment in an item\n  #hidden-in-item\n- [ ] next #later\n  #kept\n-->\n\n"
    "> <!-- a comment in a quote\n> #hidden-in-quote\nout of the quote #outside\n-->\n\n"
    "<!-- a comment block\n#hidden-in-block\n-->\n#after-block\n"
)
SHOWN = ["after-block", "kept", "later", "outside"]


async def _tags(vg: Harness) -> list[str]:
    return sorted(i["tag"] for i in (await vg.ok("list_tags"))["items"])


async def test_tags_after_an_item_or_quote_comment_are_read_and_renamed(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"N.md": NOTE})
    async with started(root) as vg:
        await vg.indexed()
        assert await _tags(vg) == SHOWN
        await vg.confirmed("rename_tag", old="later", new="soon", dry_run=False)
        await vg.confirmed("rename_tag", old="outside", new="out", dry_run=False)
        await vg.settled()
        assert await _tags(vg) == ["after-block", "kept", "out", "soon"]
    text = (root / "N.md").read_text(encoding="utf-8")
    assert "- [ ] next #soon\n" in text and "out of the quote #out\n" in text
    assert "#hidden-in-item" in text and "#hidden-in-quote" in text  # comments are left alone


async def test_an_index_built_before_reads_those_notes_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"N.md": NOTE, "Plain.md": "no comment #plain\n"})  # before 0034: the tags masked
    await indexed_before(root, 34, "DELETE FROM note_tags WHERE tag_lower IN ('later', 'kept', 'outside')")
    async with started(root) as vg:
        await vg.indexed()
        assert await _tags(vg) == [*SHOWN, "plain"]
