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


CANVAS = (  # pretty-printed with lone CRs; a text node whose text holds an (escaped) CRLF and links
    '{\r\t"nodes": [\r\t\t{"id": "a", "type": "file", "file": "Notes/T.md", "x": 0, "y": 0, "width": 9, "height": 9},'
    '\r\t\t{"id": "b", "type": "text", "text": "see [[Notes/T]]\\r\\nand [[Notes/T|t]]",'
    '\r\t\t\t"x": 0, "y": 0, "width": 9, "height": 9}\r\t],\r\t"edges": []\r}'
)


async def test_a_move_lists_a_cr_only_canvas_changes_by_its_lines(make_vault: Callable[..., Path]) -> None:
    """The canvas's file paths were matched on its LF lines (the whole file, line 1), while its
    text links' changes were numbered by its CR lines: the move listed line 1 holding the whole
    canvas (its 'before' already with the text links rewritten) beside the text node's line 4."""
    async with started(make_vault({"Notes/T.md": "t\n", "B.canvas": CANVAS})) as vg:
        await vg.indexed()
        out = await vg.confirmed("move_note", path="Notes/T.md", new_path="Arch/T.md")
        [item] = [i for i in out["items"] if i["path"] == "B.canvas"]
        assert [c["line"] for c in item["changes"]] == [3, 4], item["changes"]
        assert item["changes"][0]["before"] == CANVAS.split("\r")[2]
        assert item["changes"][1]["before"] == CANVAS.split("\r")[3]
        after = CANVAS.replace("Notes/T", "Arch/T")
        assert item["changes"][0]["after"] == after.split("\r")[2]
        assert (vg.root / "B.canvas").read_bytes().decode() == after
