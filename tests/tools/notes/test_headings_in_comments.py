"""A heading line inside a comment — Obsidian's `%%` … `%%` across lines, or an HTML comment block
(a line starting `<!--`, to `-->`) — is no heading, as in Obsidian's outline and heading links:
it does not end the section above it, no address names it, and it is not counted. Before,
`## Hidden` inside `%%` split `## Top`: read_note 'Com#Top' stopped before it, patch_note
appended to Top above the comment and 'Com#Hidden' was read. Links in comments still count."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = (
    "# Com\n\n## Top\n\nbody\n\n%%\n## Hidden\nsecret [[X]]\n%%\n\nstill top\n\n"
    "<!--\n## Html\n-->\n\nmore top\n\n## Real\n\nreal\n"
)
FILES = {"Com.md": NOTE, "X.md": "# X\n"}


async def test_a_heading_in_a_comment_is_no_heading(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        top = await vg.ok("read_note", path="Com#Top")
        assert top["content"].startswith("## Top\n") and top["content"].endswith("more top\n")
        assert (top["start_line"], top["end_line"]) == (3, 18)
        for hidden in ("Hidden", "Html"):
            error = await vg.err("read_note", "validation_error", path=f"Com#{hidden}")
            assert error["details"]["reason"] == "not_found" and error["details"]["headings"] == ["Com", "Top", "Real"]
            await vg.err("patch_note", "validation_error", path="Com", heading=["Com", hidden], content="x\n")
        await vg.ok("patch_note", path="Com", heading=["Com", "Top"], content="added\n")
        assert vg.read("Com.md") == NOTE.replace("more top\n", "more top\n\nadded\n")
        info = await vg.ok("note_info", path="Com")
        assert info["heading_count"] == 3 and info["outlinks"] == 1  # the link in the comment counts
        assert [b["path"] for b in (await vg.ok("get_backlinks", path="X"))["items"]] == ["Com.md"]
