"""A note mixing LF with lone CRs (and CRLF) is edited by the lines Obsidian reads (each CR, LF
and CRLF ends one) and written back line by line: every line an edit leaves keeps its own end, a
line it changes in place (a task ticked, a tag renamed) keeps the end it had, inserted lines end
as most of the note's lines do. Before, every lone CR of such a note was written back as LF by
any edit (append, patch by heading, task status, properties, tags)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

# Lone CR (classic Mac OS) lines with LF and CRLF ones: 6 CR, 3 LF, 1 CRLF.
NOTE = b"---\rtags: [old]\n---\r# M\r\rintro #old\n## Tasks\r- [ ] one\r\n- [ ] two\r## End\nend\r"


async def test_edits_keep_each_line_s_own_end(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"M.md": NOTE})) as vg:
        await vg.indexed()
        disk = vg.root / "M.md"
        [one, two] = (await vg.ok("list_tasks", note="M"))["items"]
        assert (one["line"], two["line"]) == (8, 9)
        await vg.ok("set_task_status", path="M", line=9, status="x", date="2026-12-01", expected_text="two")
        expected = NOTE.replace(b"- [ ] two\r", "- [x] two ✅ 2026-12-01\r".encode())
        assert disk.read_bytes() == expected
        await vg.ok("patch_note", path="M", heading=["M", "Tasks"], content="- [ ] three\n")
        expected = expected.replace(b"2026-12-01\r", b"2026-12-01\r- [ ] three\r\r")
        assert disk.read_bytes() == expected
        await vg.ok("append_note", path="M", content="tail\n")
        expected += b"tail\r"
        assert disk.read_bytes() == expected
        await vg.ok("set_properties", path="M", properties={"k": "v"})
        expected = expected.replace(b"tags: [old]\n", b"tags: [old]\nk: v\r")
        assert disk.read_bytes() == expected
        await vg.confirmed("rename_tag", old="old", new="new", dry_run=False)
        expected = expected.replace(b"[old]", b"[new]").replace(b"#old", b"#new")
        assert disk.read_bytes() == expected
        assert b"\r\n- [ ] two" not in expected and expected.count(b"\r\n") == 1  # the CRLF line kept
        tasks = (await vg.ok("list_tasks", note="M"))["items"]
        assert [(t["line"], t["description"]) for t in tasks] == [(9, "one"), (10, "two"), (11, "three")]


async def test_a_part_of_a_mixed_note_is_answered_with_its_lines_own_ends(make_vault: Callable[..., Path]) -> None:
    """A section, block, line range or body of a note mixing line ends is the file's text of those
    lines, as a part of a long note read by its lines answers it (test_long_note_parts). Before,
    its lone CRs were answered as LF (the note's one line end, LF for a mix)."""
    note = "# M\r\rintro\n## S\rtwo\r\nthree ^b\r\n## T\rtail"
    async with started(make_vault({"M.md": note.encode()})) as vg:
        assert (await vg.ok("read_note", path="M#S"))["content"] == "## S\rtwo\r\nthree ^b\r\n"
        assert (await vg.ok("read_note", path="M#^b"))["content"] == "two\r\nthree ^b\r\n"
        assert (await vg.ok("read_note", path="M#T"))["content"] == "## T\rtail\n"  # a line end added at the end
        assert (await vg.ok("read_note", path="M", start_line=2, end_line=4))["content"] == "\rintro\n## S\r"
        assert (await vg.ok("read_note", path="M", part="body"))["content"] == note
        assert (await vg.ok("read_note", path="M"))["content"] == note
        [item] = (await vg.ok("read_notes", paths=["M#S"]))["items"]
        assert item["content"] == "## S\rtwo\r\nthree ^b\r\n"
