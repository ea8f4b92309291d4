"""The changed lines an edit lists, and the line a backlink shows, are counted as Obsidian and
the index count them in a note whose lines end in a carriage return alone (classic Mac OS).
Before, `graph_common.diff_lines` and `LineText` split on LF only: set_properties on such a note
listed one change, line 1, holding the whole note before and after; rename_tag's preview did the
same, and get_backlinks gave '' as the text of the link's line 5 (the note was one line)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

MAC = b"---\rtitle: cr\r---\r# A\rsee [[X]] here\r- [ ] one #old\r"
FILES = {"Mac.md": MAC, "X.md": "# X\n"}


def _changes(item: dict[str, object]) -> list[tuple[object, ...]]:
    changes = item["changes"]
    assert isinstance(changes, list)
    return [(c["line"], c["before"], c["after"]) for c in changes]


async def test_a_cr_only_notes_changes_are_listed_by_its_lines(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        props = await vg.ok("set_properties", path="Mac", properties={"k": "v"})
        assert _changes(props) == [(3, "", "k: v")]
        assert (vg.root / "Mac.md").read_bytes() == MAC.replace(b"cr\r", b"cr\rk: v\r")
        await vg.settled()
        [item] = (await vg.ok("rename_tag", old="old", new="new", dry_run=True))["items"]
        assert _changes(item) == [(7, "- [ ] one #old", "- [ ] one #new")]


async def test_a_backlink_in_a_cr_only_note_shows_its_line(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        [link] = (await vg.ok("get_backlinks", path="X"))["items"]
        assert (link["path"], link["line"], link["text"]) == ("Mac.md", 5, "see [[X]] here")


async def test_a_rename_rewrites_a_cr_only_notes_links_by_its_lines(make_vault: Callable[..., Path]) -> None:
    """rename_note of a note a CR-only note links to failed with internal_error (IndexError: the
    note was one line, its frontmatter three); its links are rewritten now, not the one in code,
    and every line keeps its CR."""
    note = b"---\rup: '[[X]]'\r---\rsee [[X]] here\r```\r[[X]] in code\r```\r"
    async with started(make_vault({"Mac.md": note, "X.md": "# X\n"})) as vg:
        await vg.indexed()
        preview = await vg.ok("rename_note", path="X", new_path="Y", dry_run=True)
        [item] = [i for i in preview["items"] if i["path"] == "Mac.md"]
        assert _changes(item) == [(2, "up: '[[X]]'", "up: '[[Y]]'"), (4, "see [[X]] here", "see [[Y]] here")]
        await vg.ok("rename_note", path="X", new_path="Y")
        assert (vg.root / "Mac.md").read_bytes() == note.replace(b"[[X]] here", b"[[Y]] here").replace(
            b"'[[X]]'", b"'[[Y]]'"
        )


async def test_a_cr_only_note_is_read_for_mentions_by_its_lines(make_vault: Callable[..., Path]) -> None:
    """suggest_links found nothing in a CR-only note (one line to it, past which the frontmatter's
    three lines were counted: every line was skipped); it lists the mention on its line now, not
    the one in code."""
    note = b"---\rtitle: cr\r---\r# A\rsee Target here\r```\rTarget in code\r```\r"
    async with started(make_vault({"Mac.md": note, "Target.md": "# T\n"})) as vg:
        await vg.indexed()
        out = await vg.ok("suggest_links", path="Mac")
        assert [(i["line"], i["text"], i["mention"]) for i in out["items"]] == [(5, "see Target here", "Target")]
