"""A note's size is bounded in the index (`[limits] max_indexed_note_chars`, `caps.kept_text`):
of a longer note only its first characters, cut at the last line break within the limit, are
indexed. What lies beyond is not searchable and its tags, links and tasks are not listed; the
note is reported `capped` in index_status and stays readable and writable whole.

An 18 MB note saved by another program held the index writer ~10 s and the writer's next search
waited for it (F7 s62, 'what is left'). Through the dispatch chain with a small limit; counts
and warnings, no timings. A parse worker (bulk loads) cuts where the server does.
"""

from __future__ import annotations

import asyncio
import io
import pickle
from collections.abc import Callable
from pathlib import Path

from service.indexer import caps, parse_worker
from tests.conftest import started

WITHIN = 60.0
LIMIT = 2048
EARLY = "# Big\n\nearlyword #early [[A]]\n- [ ] early task\n"
FILL = "".join(f"filler line {i} of plain words\n" for i in range(200))  # ~6 KB
LATE = "lateword #late [[B]]\n- [ ] late task\n"
BIG = EARLY + FILL + LATE
BASE = {"A.md": "# A\n\nalpha\n", "B.md": "# B\n\nbeta\n"}


def _kept() -> int:
    """Characters of BIG the index keeps: up to the last line break within LIMIT."""
    return BIG.rfind("\n", 0, LIMIT) + 1


async def test_a_note_longer_than_the_limit_is_indexed_up_to_it_reported_and_stays_whole(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(BASE)
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        (root / "Big.md").write_text(BIG, encoding="utf-8")  # saved by another program
        await vg.ok("create_note", path="Small", content="smallword #small\n")
        await vg.settled()

        async def found(word: str) -> list[str]:
            return [i["path"] for i in (await vg.ok("search_text", query=word))["items"]]

        for _ in range(int(WITHIN / 0.05)):
            if await found("earlyword"):
                break
            await asyncio.sleep(0.05)  # polled without a pause, the read rate limit answered `throttled`
        assert await found("earlyword") == ["Big.md"]
        assert await found("lateword") == []  # past the limit: not indexed
        assert await found("smallword") == ["Small.md"]
        tags = {i["tag"] for i in (await vg.ok("list_tags"))["items"]}
        assert {"early", "small"} <= tags and "late" not in tags
        assert [b["path"] for b in (await vg.ok("get_backlinks", path="A"))["items"]] == ["Big.md"]
        assert (await vg.ok("get_backlinks", path="B"))["items"] == []
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert warnings["by_reason"] == {"capped": 1}
        [example] = warnings["examples"]
        assert example["path"] == "Big.md"
        assert example["detail"] == f"text {len(BIG)} chars > {LIMIT}: the first {_kept()} indexed"

        # The note itself stays whole: read, and written.
        assert (await vg.ok("read_note", path="Big"))["content"] == BIG
        await vg.ok("append_note", path="Big", content="appendedword\n")
        assert (root / "Big.md").read_text(encoding="utf-8") == BIG + "appendedword\n"
        await vg.settled()
        assert await found("appendedword") == []
        assert (await vg.ok("read_note", path="Big", start_line=BIG.count("\n") + 1))["content"] == "appendedword\n"


async def test_a_note_within_the_limit_is_indexed_whole(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**BASE, "Big.md": BIG})
    async with started(root, limits={"max_indexed_note_chars": len(BIG)}) as vg:
        await vg.indexed(WITHIN)
        assert [i["path"] for i in (await vg.ok("search_text", query="lateword"))["items"]] == ["Big.md"]
        assert (await vg.ok("index_status"))["file_warnings"] is None  # nothing to report


def test_kept_text_cuts_at_the_last_line_break_within_the_limit_or_at_the_limit() -> None:
    caps.use_max_chars(10)
    try:
        assert caps.kept_text("short\n") == "short\n"
        assert caps.kept_text("one\ntwo\nthree\nfour\n") == "one\ntwo\n"
        assert caps.kept_text("x" * 25) == "x" * 10  # no line break within the limit
    finally:
        caps.use_max_chars(None)


def test_a_parse_worker_cuts_where_the_server_does(tmp_path: Path) -> None:
    (tmp_path / "Big.md").write_text(BIG, encoding="utf-8")
    limits = {"max_frontmatter_values": 100_000, "max_depth": 64, "max_value_bytes": 1 << 24}
    inp = io.BytesIO()
    pickle.dump((str(tmp_path), {**limits, "max_indexed_note_chars": LIMIT}), inp)
    pickle.dump((["Big.md"], {}), inp)
    inp.seek(0)
    out = io.BytesIO()
    try:
        parse_worker.serve(inp, out)
    finally:
        caps.use_max_chars(None)  # the worker's setting, made in this process
    out.seek(0)
    [prep], _touch, issues = parse_worker.read_answer(out)
    assert "lateword" not in prep.body and "earlyword" in prep.body
    assert [(i.path, i.reason) for i in issues] == [("Big.md", "capped")]
