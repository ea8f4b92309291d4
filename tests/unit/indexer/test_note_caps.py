"""One hostile note never stalls the index (T1 s62 #13): a note of 100,000 inline tags, written
through `create_note` or saved by another program, is indexed with at most `MAX_TAGS` tags and
`MAX_ROWS` rows of each other kind, reported as a file warning (`capped`, with what was cut),
and every other call goes on. Through the dispatch chain; counts and warnings, no timings.

Parsing such a note is linear: its tags were de-duplicated with a list's `in` (quadratic: a
100,000-tag note held the writer for minutes, and every later write failed `index_unavailable`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer.caps import MAX_ROWS, MAX_TAGS
from service.markdown.parse import ParsedNote, parse_note
from service.tools.notes import read
from tests.conftest import Harness, started

# A bound on the first index, not a timing: indexing the capped notes at start (300,000 rows) took
# 46-60 s under -n 2 at load 17 on 2 cores (20 s alone), and the 60 s this was made it fail there.
# Below the suite's 180 s, so a stalled index still fails here, as a wait that timed out.
WITHIN = 150.0
TAGS = " ".join(f"#t{i}" for i in range(100_000))  # the T1 note (789 KB)
BASE = {"A.md": "# A\n\nalpha word #real\n", "B.md": "# B\n\nbeta [[A]]\n"}


async def _count(vg: Harness, sql: str, path: str) -> int:
    row = await vg.app.services.db.fetchone(sql + " WHERE n.path = ?", (path,))
    assert row is not None
    return int(row[0])


async def _tag_rows(vg: Harness, path: str) -> int:
    return await _count(vg, "SELECT COUNT(*) FROM note_tags t JOIN notes n ON n.id = t.note_id", path)


async def test_a_note_of_100000_tags_written_while_serving_is_capped_reported_and_the_vault_goes_on(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(BASE)) as vg:
        await vg.indexed(WITHIN)
        await vg.ok("create_note", path="Deep/tags", content="hostileword\n\n" + TAGS)
        await vg.settled()
        # Every later write and read goes on.
        await vg.ok("create_note", path="Deep/after", content="afterword\n")
        await vg.settled()
        assert [i["path"] for i in (await vg.ok("search_text", query="afterword"))["items"]] == ["Deep/after.md"]
        assert [i["path"] for i in (await vg.ok("search_text", query="hostileword"))["items"]] == ["Deep/tags.md"]
        status = await vg.ok("index_status")
        assert status["state"] == "ready"
        warnings = status["file_warnings"]
        assert warnings["by_reason"] == {"capped": 1}
        assert warnings["skipped"] == 0  # indexed, not left out
        [example] = warnings["examples"]
        assert example["path"] == "Deep/tags.md"
        assert example["detail"] == f"tags 100000 > {MAX_TAGS}"
        assert await _tag_rows(vg, "Deep/tags.md") == MAX_TAGS
        tags = await vg.ok("list_tags", prefix="t9999")
        assert {i["tag"] for i in tags["items"]} == {"t9999"}  # the first MAX_TAGS tags, in order
        assert (await vg.ok("list_tags", prefix="t10000"))["items"] == []
        assert "real" in {i["tag"] for i in (await vg.ok("list_tags", prefix="real"))["items"]}
        info = await vg.ok("note_info", path="Deep/tags")  # it answered `overflow` (1.8 MB)
        assert info["tags"] == [f"t{i}" for i in range(MAX_TAGS)]
        assert info["indexed"] is True
        # Edited below the caps, the note is indexed whole and its warning goes.
        await vg.confirmed("write_note", path="Deep/tags", content="#one #two\n", mode="overwrite")
        await vg.settled()
        assert await _tag_rows(vg, "Deep/tags.md") == 2
        assert (await vg.ok("index_status"))["file_warnings"] is None


async def test_notes_over_the_caps_saved_by_another_program_are_indexed_capped_at_start(
    make_vault: Callable[..., Path],
) -> None:
    fm_tags = "---\ntags: [" + ", ".join(f"f{i}" for i in range(MAX_TAGS + 5)) + "]\n---\n"
    links = " ".join("[[A]]" for _ in range(MAX_ROWS + 7))
    tasks = "".join(f"- [ ] task {i}\n" for i in range(MAX_ROWS + 3))
    files = {**BASE, "Tags.md": fm_tags + "tagsword\n", "Links.md": "linksword\n" + links, "Tasks.md": tasks}
    # Tasks.md is 1.7 MB: the size limit (test_note_size_cap.py) is raised so the row caps cut it.
    async with started(make_vault(files), limits={"max_indexed_note_chars": 4 * 1024 * 1024}) as vg:
        await vg.indexed(WITHIN)
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert warnings["by_reason"] == {"capped": 3}
        details = {e["path"]: e["detail"] for e in warnings["examples"]}
        assert details == {
            "Links.md": f"links {MAX_ROWS + 7} > {MAX_ROWS}",
            "Tags.md": f"tags {MAX_TAGS + 5} > {MAX_TAGS}",
            "Tasks.md": f"tasks {MAX_ROWS + 3} > {MAX_ROWS}; items {MAX_ROWS + 3} > {MAX_ROWS}",
        }
        assert await _tag_rows(vg, "Tags.md") == MAX_TAGS
        links_sql = "SELECT COUNT(*) FROM links l JOIN notes n ON n.id = l.src_id"
        assert await _count(vg, links_sql, "Links.md") == MAX_ROWS
        tasks_sql = "SELECT COUNT(*) FROM tasks t JOIN notes n ON n.id = t.note_id"
        assert await _count(vg, tasks_sql, "Tasks.md") == MAX_ROWS
        assert [i["path"] for i in (await vg.ok("search_text", query="linksword"))["items"]] == ["Links.md"]
        await vg.ok("create_note", path="C", content="gammaword\n")
        await vg.settled()
        assert [i["path"] for i in (await vg.ok("search_text", query="gammaword"))["items"]] == ["C.md"]


def test_tags_keep_their_first_seen_order_frontmatter_first_without_duplicates() -> None:
    note = parse_note("N.md", "---\ntags: [b, a, b]\n---\n#c #a #d #c\n- [ ] x #e #e\n")
    assert note.tags == ["b", "a", "c", "d", "e"]
    assert note.inline_tags == ["c", "a", "d", "e"]
    many = parse_note("M.md", " ".join(f"#t{i % 1000}" for i in range(50_000)))
    assert many.tags == [f"t{i}" for i in range(1000)]


async def test_note_info_parses_a_long_note_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: dict[str, str] = {}

    def recording(rel: str, text: str) -> ParsedNote:
        threads[rel] = threading.current_thread().name
        return parse_note(rel, text)

    monkeypatch.setattr(read, "parse_note", recording)
    async with started(make_vault({**BASE, "Long.md": TAGS})) as vg:
        await vg.indexed(WITHIN)
        assert len((await vg.ok("note_info", path="Long"))["tags"]) == MAX_TAGS
        assert (await vg.ok("note_info", path="A"))["tags"] == ["real"]
    main = threading.main_thread().name
    assert threads["A.md"] == main  # a short note: no thread hop
    assert threads["Long.md"] != main  # the loop runs other calls meanwhile
