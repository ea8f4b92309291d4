"""replace_text changes a note's body only, so no replacement may make, end or move a frontmatter
block: 'x' at the start of a note without one replaced by '---\\na: 1\\n---' wrote a properties
block (the tool's description says frontmatter is left alone). Such a call is refused whole, as
validation_error naming the note, and nothing changes; the same replacement in the body is done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES: dict[str, str | bytes] = {
    "Plain.md": "x marks the spot\n",
    "Break.md": "---\nA note opening with a rule, no closing one.\nTODO\n",
    "Props.md": "---\na: 1\n---",  # no line end after the closing fence, an empty body
    "Other.md": "Some x here\n",
    "Crlf.md": "x first\r\nsecond\r\n",
}


async def test_a_replacement_that_would_make_or_end_a_frontmatter_block_is_refused(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(FILES), throttle={"enabled": False}) as vg:  # 10 bulk calls in a row
        await vg.indexed()
        before = vg.snapshot()
        for path, find, replace in (
            ("Plain", "^x", "---\na: 1\n---\nx"),  # a block written at the start
            ("Crlf", "^x", "---\nb: 2\n---\nx"),
            ("Break", "TODO", "---"),  # a closing '---' for the opening rule: its text became properties
            ("Props", r"\A|$", "tail"),  # text joined to the closing fence: the block ends no more
        ):
            for dry_run in (True, False):
                err = await vg.err(
                    "replace_text", "validation_error", find=find, replace=replace, regex=True, path=path,
                    dry_run=dry_run,
                )  # fmt: skip
                assert err["details"]["path"] == f"{path}.md"
        # over the whole vault: one such note refuses the call, the others are not changed either
        await vg.err("replace_text", "validation_error", find="^x", replace="---\nc: 3\n---\nx", regex=True)
        assert vg.snapshot() == before
        done = await vg.confirmed("replace_text", find="Some x", replace="Some\n---\nx", dry_run=False)
        assert done["files_changed"] == 1
        assert vg.read("Other.md") == "Some\n---\nx here\n"
