"""A part of a note longer than an answer may hold (`[governor] max_response_bytes`) is read by
its lines from the file (`service.tools.notes.part_reads`), never read nor decoded whole: a heading
section, a block, a line range, the frontmatter, the body. Before, read_note 'Big#Heading' read the
whole file (`VaultFiles.read`: its bytes and its text, ~100 MB at the peak for a 50 MB note). Its
answers are those of the same call on a server whose limit holds the note (the whole-note path)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.notes import part_reads
from tests.conftest import started

LIMIT = 4096
FILLER = "".join(f"filler line {i} with [[X]] and #tag\n" for i in range(300))  # ~11 KB
BIG = (
    "---\ntitle: big\ntags: [long]\n---\n# Big\n\nintro\n\n## Top\n\nbody ^b1\n\n%%\n## Hidden\n- [ ] t ^gone\n%%\n\n"
    "```\n## in code\n```\n\n### Sub\n\nsub text\n\n## Filler\n\n" + FILLER + "\n## Mid\n\npara one\npara two ^b2\n\n"
    "- item ^b3\n\n## End\n\nlast line"
)
MIXED = "# M\rone\n## S\rtwo\r\nthree\r## F\r" + FILLER.replace("\n", "\r") + "## T\ntail\n"
BROKEN = "---\nbroken: [\n---\n# B\n## S\ns\n## F\n" + FILLER
FILES = {"Big.md": BIG, "Mixed.md": MIXED.encode(), "Broken.md": BROKEN, "X.md": "# X\n"}
CALLS: list[dict[str, Any]] = [
    {"path": "Big#Top"},
    {"path": "Big#Mid"},
    {"path": "Big#End"},
    {"path": "Big#^b1"},
    {"path": "Big#^b2"},
    {"path": "Big#^b3"},
    {"path": "Big", "heading": ["Big", "Top", "Sub"]},
    {"path": "Big", "start_line": 5, "end_line": 12},
    {"path": "Big", "start_line": 330},
    {"path": "Big", "part": "frontmatter"},
    {"path": "Mixed#S"},
    {"path": "Mixed#T"},
    {"path": "Mixed", "start_line": 2, "end_line": 4},
    {"path": "Broken#S"},
]


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


SAME = (
    "content",
    "start_line",
    "end_line",
    "total_lines",
    "etag",
    "properties",
    "tags",
    "links",
    "size",
    "frontmatter_error",
)


@pytest.mark.parametrize("args", CALLS)
async def test_a_part_of_a_long_note_is_read_by_its_lines(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, args: dict[str, Any]
) -> None:
    root = make_vault(FILES)
    async with started(root) as whole:
        expected = await whole.ok("read_note", **args)
    async with started(root, governor={"max_response_bytes": LIMIT}) as vg:
        files = next(iter(vg.app.vaults.values())).files
        monkeypatch.setattr(files, "read", lambda vp: pytest.fail(f"{vp.rel} read whole"))
        got = await vg.ok("read_note", **args)
        if args["path"].startswith("Mixed"):  # the lines are the same; their ends are the file's here
            assert got["content"] in MIXED and _lf(got["content"]) == _lf(expected["content"])
        else:
            assert got["content"] == expected["content"]
        for key in SAME[1:]:
            assert got[key] == expected[key], key


async def test_what_a_long_note_s_part_cannot_be_read_within_is_refused(make_vault: Callable[..., Path]) -> None:
    long_line = "y" * 20_000
    files = {
        "Big.md": BIG,
        "Line.md": "# L\n\n## A\n\na\n\n" + long_line + "\n\n## B\n\nb\n",
        "Latin.md": ("# L\n\n## A\n\ncaf\xe9\n" + FILLER).encode("cp1252"),
    }
    limits = {"max_indexed_note_chars": 1024}  # lines held up to max(LIMIT / 2, 1025) characters
    async with started(make_vault(files), governor={"max_response_bytes": LIMIT}, limits=limits) as vg:
        for path in ("Big#Nowhere", "Big#Hidden", "Big#^gone"):
            error = await vg.err("read_note", "validation_error", path=path)
            assert error["details"]["reason"] == "not_found"
        error = await vg.err("read_note", "overflow", path="Big#Filler")  # past the limit
        assert error["details"]["bytes"] > LIMIT
        error = await vg.err("read_note", "overflow", path="Line#B")
        assert error["details"]["bytes"] == 2 * len(long_line) and "line 7" in error["message"]
        assert (await vg.ok("read_note", path="Line", start_line=9, end_line=11))["content"] == "## B\n\nb\n"
        error = await vg.err("read_note", "overflow", path="Latin#A")
        assert error["details"]["reason"] == "not_utf8"
        error = await vg.err("read_note", "validation_error", path="Big", start_line=10_000)
        assert error["details"]["total_lines"] == BIG.count("\n") + 1
        [item] = (await vg.ok("read_notes", paths=["Big#Mid"]))["items"]
        assert item["content"] == "## Mid\n\npara one\npara two ^b2\n\n- item ^b3\n"


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_lines_are_split_alike_across_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """A CRLF, or a character of several bytes, cut by a chunk's end is read as one; a line over
    the held length is given as None with its length."""
    monkeypatch.setattr(part_reads, "CHUNK", chunk)
    text = "a\r\nb\rc\n\r\n\r\ré€𝄞\r\n" + "x" * 12 + "\ry\r"
    (tmp_path / "n.md").write_bytes(text.encode())
    with (tmp_path / "n.md").open("rb") as fh:
        got = list(part_reads._lines(fh, 10))
    assert got == [
        ("a", 1, "\r\n"), ("b", 1, "\r"), ("c", 1, "\n"), ("", 0, "\r\n"), ("", 0, "\r"), ("", 0, "\r"),
        ("é€𝄞", 3, "\r\n"), (None, 12, "\r"), ("y", 1, "\r"), ("", 0, ""),
    ]  # fmt: skip
