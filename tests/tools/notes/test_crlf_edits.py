"""Text the edit tools insert into a note written with CRLF line breaks ends its lines with CRLF
too, as set_properties already wrote its frontmatter lines: append_note, prepend_note,
write_note append, patch_note (heading, block, anchor), append_to_periodic_note, apply_template
inserting into a note and process_capture filing into one. Before,
they inserted LF lines, leaving the note with mixed line endings. A note with LF or mixed
endings is changed as it is."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

CRLF = "---\r\na: 1\r\n---\r\n# T\r\n\r\n## Log\r\n\r\nfirst ^b1\r\n\r\n## End\r\n\r\nlast\r\n"
DAY = "# Day\r\n\r\n## Log\r\n\r\n- one\r\n"
SETTINGS = json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"})
TEMPLATES = {".obsidian/templates.json": json.dumps({"folder": "Templates"}), "Templates/T.md": "## Added\n{{title}}\n"}


def _same(data: bytes) -> bytes:
    """A note's text without what differs between the two notes (their names, the captures' ids and times)."""
    return re.sub(rb"cap-[0-9a-f]+|captured [^\]]+|\b[CL]\b", b"", data)


def _lone_lf(data: bytes) -> int:
    return data.count(b"\n") - data.count(b"\r\n")


async def test_inserted_lines_end_as_the_notes_lines_do(make_vault: Callable[..., Path]) -> None:
    files = {"C.md": CRLF, "L.md": CRLF.replace("\r\n", "\n"), "Daily/2026-12-01.md": DAY}
    async with started(make_vault({**files, ".obsidian/daily-notes.json": SETTINGS, **TEMPLATES})) as vg:
        await vg.indexed()
        for path in ("C", "L"):
            await vg.ok("append_note", path=path, content="appended\nmore\n")
            await vg.ok("prepend_note", path=path, content="pre\n")
            await vg.ok("write_note", path=path, mode="append", content="tail\n")
            await vg.ok("patch_note", path=path, heading=["T", "Log"], content="p1\np2\n")
            await vg.ok("patch_note", path=path, block="b1", position="after", content="after block\n")
            await vg.ok("patch_note", path=path, anchor="last", position="after", content=" and\nnext")
            await vg.ok("apply_template", template="T", path=path, heading=["T", "End"], position="append")
            await vg.ok("capture", text=f"filed into {path}")
            [pending] = (await vg.ok("list_captures", status="pending"))["items"]
            await vg.ok("process_capture", capture_id=pending["id"], action="note", target=path)
        await vg.ok("append_to_periodic_note", period="daily", date="2026-12-01", content="- two\n", heading=["Log"])
        crlf, lf = (vg.root / "C.md").read_bytes(), (vg.root / "L.md").read_bytes()
        assert _lone_lf(crlf) == 0 and b"p1\r\np2\r\n" in crlf and b"last and\r\nnext" in crlf
        assert _same(crlf.replace(b"\r\n", b"\n")) == _same(lf)  # the same edits, the same text
        assert b"\r" not in lf
        day = (vg.root / "Daily/2026-12-01.md").read_bytes()
        assert _lone_lf(day) == 0 and b"- one\r\n- two\r\n" in day
