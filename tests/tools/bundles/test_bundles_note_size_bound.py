"""The bundle tools never read a note over `[limits] max_note_bytes` whole (a 600 MB note held
GBs and took tens of seconds per page: every page read, decoded and hashed it all).

- bundle_files and bundle_folder list it in `refused`, with read_note's `compute_budget_exceeded`
  (details path, size, limit "note_bytes", max_note_bytes), and pack the other notes: one long note
  no longer costs its whole read, nor fails or hides the rest of the bundle;
- context_for_query still cites a passage of it by its lines, read from the note's first
  `[limits] max_indexed_note_chars` characters (where every passage comes from), the rest unread.

Before, bundle_files and bundle_folder packed it (read whole, unbounded) and context_for_query read
it whole to number the lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.vault import dirfd
from tests.conftest import started
from tests.semantic.helpers import semantic

LIMIT = 4096
PASSAGE = "The zeppelin manifest lists every crate loaded at the northern dock."
BIG = (
    "---\ntitle: big\n---\n# Big\n\n"
    + f"{PASSAGE}\n\n"
    + "".join(f"line {i} of gardening filler about tomatoes\n" for i in range(300))
)
FILES = {"A.md": "# A\n\nfirst\n", "Big.md": BIG, "C.md": "# C\n\nlast\n"}
# the index cuts Big too: the lines of a passage come from that head only
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}


def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The vault paths read whole from now on (every whole read goes through one of these)."""
    reads: list[str] = []

    def spied(name: str) -> None:
        real = getattr(dirfd, name)

        def read(root: Path, rel: str, *args: Any) -> Any:
            got = real(root, rel, *args)
            if got is not None:
                reads.append(rel)
            return got

        monkeypatch.setattr(dirfd, name, read)

    for name in ("read_file", "read_plain", "read_bytes"):
        spied(name)
    return reads


def _refused(item: dict[str, Any], address: str) -> None:
    assert item["address"] == address and item["path"] == "Big.md", item
    assert item["error"]["code"] == "compute_budget_exceeded", item
    assert item["error"]["details"] == {
        "path": "Big.md",
        "size": len(BIG.encode()),
        "limit": "note_bytes",
        "max_note_bytes": LIMIT,
    }, item


async def test_bundle_files_lists_a_note_over_the_bound_as_refused_and_packs_the_rest(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(FILES), limits=LIMITS) as vg:
        reads = whole_reads(monkeypatch)
        out = await vg.ok("bundle_files", paths=["A", "Big", "Nope", "C"])
        assert [e["path"] for e in out["entries"]] == ["A.md", "C.md"]
        [item] = out["refused"]
        _refused(item, "Big")
        assert out["missing"] == ["Nope"] and out["manifest"]["remaining"] == 0 and out["next_cursor"] is None
        assert "Big.md" not in reads, reads
        # each mode: even the frontmatter's needs the whole note (its etag, its scan for secrets)
        for mode in ("body", "frontmatter"):
            [item] = (await vg.ok("bundle_files", paths=["Big"], mode=mode))["refused"]
            _refused(item, "Big")


async def test_bundle_folder_pages_past_a_note_over_the_bound(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(FILES), limits=LIMITS) as vg:
        reads = whole_reads(monkeypatch)
        out = await vg.ok("bundle_folder", folder="")
        assert [e["path"] for e in out["entries"]] == ["A.md", "C.md"]
        [item] = out["refused"]
        _refused(item, "Big.md")
        assert out["manifest"]["total"] == 3 and out["manifest"]["remaining"] == 0
        # page by page (a page holds one note): the refused note is reported once, on its page
        seen: list[tuple[list[str], list[str]]] = []
        cursor = None
        while True:
            page = await vg.ok("bundle_folder", folder="", max_bytes=256, **({"cursor": cursor} if cursor else {}))
            seen.append(([e["path"] for e in page["entries"]], [r["path"] for r in page["refused"]]))
            if (cursor := page["next_cursor"]) is None:
                break
        assert [p for entries, _ in seen for p in entries] == ["A.md", "C.md"], seen
        assert [p for _, refused in seen for p in refused] == ["Big.md"], seen
        assert "Big.md" not in reads, reads


async def test_context_for_query_cites_lines_of_a_note_over_the_bound_unread_whole(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with semantic(make_vault(FILES), limits=LIMITS) as h:
        reads = whole_reads(monkeypatch)
        out = await h.ok("context_for_query", query="zeppelin manifest crates at the northern dock", max_tokens=2000)
        passage = next(p for p in out["passages"] if p["path"] == "Big.md" and PASSAGE in p["text"])
        at = BIG.splitlines().index(PASSAGE) + 1
        assert passage["lines"] is not None and passage["lines"]["start"] <= at <= passage["lines"]["end"], passage
        assert "Big.md" not in reads, reads


DEEP = "# Deep\n\n" + "".join(f"line {i} of gardening filler about tomatoes\n" for i in range(150)) + f"\n{PASSAGE}\n"


async def test_context_for_query_reads_a_note_over_the_bound_as_far_as_the_index_read_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passage past the first `max_indexed_note_chars` characters (an index made under a larger
    cap, the note unchanged since) is still cited by its own lines, not by a look-alike line
    earlier in the head."""
    root = make_vault({"Deep.md": DEEP, "Home.md": "# Home\n\nGardening.\n"})
    query = "zeppelin manifest crates at the northern dock"
    async with semantic(root, limits={"max_note_bytes": LIMIT}) as h:
        wide = await h.ok("context_for_query", query=query, max_tokens=2000)
    async with semantic(root, limits=LIMITS) as h:
        reads = whole_reads(monkeypatch)
        out = await h.ok("context_for_query", query=query, max_tokens=2000)
        assert "Deep.md" not in reads, reads
    at = DEEP.splitlines().index(PASSAGE) + 1
    for answer in (wide, out):
        passage = next(p for p in answer["passages"] if p["path"] == "Deep.md" and PASSAGE in p["text"])
        assert passage["lines"] is not None and passage["lines"]["end"] == at, passage
