"""A note whose lines end in a carriage return alone (classic Mac OS) is read line by line, as
Obsidian's editor (CodeMirror) reads it: its frontmatter, headings, tasks, tags and links are
seen, its sections and line ranges are addressed by those lines, and an edit keeps its CR line
ends. Before, the whole note was one line to the parser: no properties (get_properties said
"carriage return"), no headings ('Mac#B' not_found), no tasks, total_lines 1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

MAC = "---\rtitle: cr\rtags: [a]\r---\r# A\r\rintro\r\r## B\r\r- [ ] one #t\rsee [[X]]\r"
FILES = {"Mac.md": MAC.encode(), "X.md": "# X\n"}


async def test_a_cr_only_note_is_read_by_its_lines(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        props = await vg.ok("get_properties", path="Mac")
        assert (props["properties"], props["frontmatter_error"]) == ({"title": "cr", "tags": ["a"]}, None)
        whole = await vg.ok("read_note", path="Mac")
        assert whole["content"] == MAC and whole["total_lines"] == 12 and sorted(whole["tags"]) == ["a", "t"]
        section = await vg.ok("read_note", path="Mac#B")
        assert section["content"] == "## B\r\r- [ ] one #t\rsee [[X]]\r"
        assert (section["start_line"], section["end_line"]) == (9, 12)
        lines = await vg.ok("read_note", path="Mac", start_line=5, end_line=7)
        assert lines["content"] == "# A\r\rintro\r"
        body = await vg.ok("read_note", path="Mac", part="body")
        assert body["content"] == MAC[MAC.index("# A") :] and body["start_line"] == 5
        info = await vg.ok("note_info", path="Mac")
        assert (info["heading_count"], info["line_count"], info["outlinks"]) == (2, 12, 1)
        [task] = (await vg.ok("list_tasks", note="Mac"))["items"]
        assert (task["line"], task["text"], task["heading"]) == (11, "one #t", "B")
        assert [b["path"] for b in (await vg.ok("get_backlinks", path="X"))["items"]] == ["Mac.md"]


async def test_edits_of_a_cr_only_note_keep_its_line_ends(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await vg.ok("set_task_status", path="Mac", line=11, status="x", date="2026-12-01", expected_text="one #t")
        await vg.ok("patch_note", path="Mac", heading=["A", "B"], content="added\n")
        await vg.ok("set_properties", path="Mac", properties={"k": "v"})
        data = (vg.root / "Mac.md").read_bytes()
        assert b"\n" not in data
        assert data.startswith(b"---\rtitle: cr\rtags: [a]\rk: v\r---\r# A\r")
        assert data.endswith(b"## B\r\r- [x] one #t \xe2\x9c\x85 2026-12-01\rsee [[X]]\r\radded\r")


async def test_tag_renames_read_a_cr_only_notes_lines(make_vault: Callable[..., Path]) -> None:
    """rename_tag renamed a CR note's frontmatter tag but not `#old` in its body (one line to the
    tag scanner, taken for the fenced block it holds); code stays code."""
    note = b"---\rtags: [old]\r---\r# A\r```\r#old in code\r```\rtext #old\r"
    async with started(make_vault({"Mac.md": note})) as vg:
        await vg.indexed()
        await vg.confirmed("rename_tag", old="old", new="new", dry_run=False)
        assert (vg.root / "Mac.md").read_bytes() == note.replace(b"[old]", b"[new]").replace(b"text #old", b"text #new")
        await vg.ok("remove_tags", path="Mac", tags=["new"], inline=True)
        assert (vg.root / "Mac.md").read_bytes() == b"---\r---\r# A\r```\r#old in code\r```\rtext\r"


async def test_a_crlf_note_with_a_stray_cr_is_patched_in_the_right_section(make_vault: Callable[..., Path]) -> None:
    """A CR alone inside a CRLF note is a line end to the readers: the edit counts its lines the
    same way (it appended under `## C` when only CRLF was split); the stray CR, on a line the edit
    leaves, stays."""
    async with started(make_vault({"W.md": b"# A\r\nx\ry\r\n## B\r\nb\r\n## C\r\nc\r\n"})) as vg:
        await vg.ok("patch_note", path="W", heading=["A", "B"], content="new\n")
        assert (vg.root / "W.md").read_bytes() == b"# A\r\nx\ry\r\n## B\r\nb\r\n\r\nnew\r\n\r\n## C\r\nc\r\n"


async def test_a_task_after_a_cr_before_a_crlf_is_set_on_its_own_line(make_vault: Callable[..., Path]) -> None:
    """`a\\r\\r\\n` is two lines to the index (the CR alone ends one): set_task_status on the line
    list_tasks gives for `b` changes `b`. Before, the edit counted one line there and ticked `c`,
    dropping the stray CR (kept now, as every untouched line's end)."""
    async with started(make_vault({"T.md": b"- [ ] a\r\r\n- [ ] b\r\n- [ ] c\r\n"})) as vg:
        await vg.indexed()
        items = (await vg.ok("list_tasks"))["items"]
        b = next(i for i in items if i["description"] == "b")
        etag = (await vg.ok("read_note", path="T.md"))["etag"]
        out = await vg.ok(
            "set_task_status", path="T.md", line=b["line"], status="x", expected_etag=etag, date="2026-12-01"
        )
        assert out["text"].startswith("b ")
        assert (vg.root / "T.md").read_bytes() == "- [ ] a\r\r\n- [x] b ✅ 2026-12-01\r\n- [ ] c\r\n".encode()
