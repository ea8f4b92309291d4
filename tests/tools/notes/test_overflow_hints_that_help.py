"""Errors whose hint says what to do instead (H3, session 75; U7 s74's finding).

Before: read_note of one line longer than an answer may hold, and get_outline of a note with such
a line, were told to "read a line range" (get_outline's own message said line 1 alone is more);
read_attachment of an image it cannot decode, and set_properties with an empty or multi-line
property name, got the generic "Check the arguments against the tool's input schema". Now the
hints name what helps: bundle_files sends such a note in pages cut inside the line (checked
here: it does), Obsidian or a new file for a damaged image, a name as Obsidian shows it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LIMIT = 4096
LINE = "x" * 20_000  # alone more than an answer may hold (it is sent twice)
FILES: dict[str, str | bytes] = {
    "Line.md": LINE + "\n",
    "Long.md": "# Top\n\n" + "filler line\n" * 1000 + LINE + "\n## End\nlast\n",  # longer than the limit
    "Img/broken.png": b"\x89PNG\r\n\x1a\nnot really a png",
    "N.md": "# N\n",
}


def _says_what_helps(error: dict[str, object], line: int) -> None:
    details = error["details"]
    assert isinstance(details, dict) and details["reason"] == "line_too_long" and details["line"] == line
    hint = str(error["hint"])
    assert f"Line {line} alone" in hint and "bundle_files" in hint and not hint.startswith("Read a part")


@pytest.mark.parametrize(
    ("path", "line"), [("Line", 1), ("Long", 1003)], ids=["read whole by lines", "read by its lines from the file"]
)
async def test_one_line_too_long_is_not_sent_to_a_line_range(
    make_vault: Callable[..., Path], path: str, line: int
) -> None:
    limits = {"max_indexed_note_chars": 4096}
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}, limits=limits) as vg:
        error = await vg.err("read_note", "overflow", path=path, start_line=line, end_line=line)
        _says_what_helps(error, line)


async def test_get_outline_of_a_note_with_a_line_too_long_says_what_helps(make_vault: Callable[..., Path]) -> None:
    limits = {"max_indexed_note_chars": 4096}
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}, limits=limits) as vg:
        error = await vg.err("get_outline", "overflow", path="Long")
        _says_what_helps(error, 1003)
        assert "no outline" in str(error["hint"])
        section = await vg.err("read_note", "overflow", path="Long#End")  # the structure cannot be read either
        _says_what_helps(section, 1003)


async def test_the_whole_note_hint_names_bundle_files_and_bundle_files_reads_the_line(
    make_vault: Callable[..., Path],
) -> None:
    # 16 KB: a bundle page holds at least 4 KB of entries (bundles' floor), with room for the rest
    async with started(make_vault(FILES), governor={"max_response_bytes": 16384}) as vg:
        error = await vg.err("read_note", "overflow", path="Line")
        assert "bundle_files" in error["hint"]
        text, cursor = "", None
        for _ in range(40):
            page = await vg.ok("bundle_files", paths=["Line"], max_bytes=3000, **({"cursor": cursor} if cursor else {}))
            text += "".join(e["content"] for e in page["entries"])
            if (cursor := page["next_cursor"]) is None:
                break
        assert text == LINE + "\n"


async def test_an_undecodable_image_and_a_bad_property_name_get_hints_of_their_own(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(FILES)) as vg:
        image = await vg.err("read_attachment", "validation_error", path="broken.png")
        assert image["details"]["reason"] == "undecodable_image" and "open_in_obsidian" in image["hint"]
        before = vg.snapshot()
        for key in ("", " ", "a\nb"):
            error = await vg.err("set_properties", "validation_error", path="N", properties={key: 1})
            assert error["details"]["reason"] == "invalid_property_name" and "get_properties" in error["hint"]
        assert vg.snapshot() == before
