"""replace_text's plan holds about the note's two texts, not an object for each changed line (U13, s79).

A 50 MB note whose 675,000 lines each held a match peaked at ~658 MB (RSS) in a replace_text
dry run (~552 MB over the app's own): each match's run of lines was a tuple of four integers
(~125 MB), the diff split both texts into lists of lines (~170 MB) and listed every changed run
as a tuple again (~125 MB), for an answer listing a few hundred lines. Now the runs are four
integers each in one array (`service.markdown.lines_view.Runs`), the diff reads the texts
through views of their lines (`Lines`, one offset a line) and makes the runs one at a time
(`iter_changed_runs`): ~332 MB (+226). Here, what Python allocates at most during the call
(tracemalloc's peak) for a note three times as long as another, per character it adds: ~10.7
before, ~5 now.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

LINE = "A line {n} of the log that links to [[Home]] and carries #tag and more words.\n"


def log(lines: int) -> str:
    return "---\nk: 1\n---\n# Log\n" + "".join(LINE.format(n=n) for n in range(lines))


SHORT, LONG = log(1_500), log(4_500)
MOST = 8  # bytes allocated at most for each character the longer note adds (was ~10.7; ~5 now)


async def peak_of_dry_run(vg: Harness, path: str, lines: int) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        out = await vg.ok("replace_text", path=path, find="words", replace="text", dry_run=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out["lines_changed"] == out["replacements"] == lines and out["files_changed"] == 1
    [item] = out["items"]
    listed = item["changes"]
    assert 0 < len(listed) < lines and len(listed) + item["changes_not_listed"] == lines
    old = (SHORT if lines == 1_500 else LONG).split("\n")
    assert listed == [
        {"line": n, "before": old[n - 1], "after": old[n - 1].replace("words", "text")}
        for n in range(5, 5 + len(listed))
    ]
    return peak


@pytest.mark.covers("replace_text", "success")
async def test_a_replace_in_a_long_note_holds_no_object_per_changed_line(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Short.md": SHORT, "Long.md": LONG})
    async with started(root, governor={"max_response_bytes": 65536}) as vg:
        await vg.settled()
        before = vg.snapshot()
        await vg.ok("replace_text", path="Long", find="line 1 ", replace="line 1 ", dry_run=True)  # warm
        short = await peak_of_dry_run(vg, "Short", 1_500)
        long = await peak_of_dry_run(vg, "Long", 4_500)
        assert vg.snapshot() == before
    per_char = (long - short) / (len(LONG) - len(SHORT))
    assert per_char < MOST, f"the dry run allocated {per_char:.1f} bytes more for each character the note adds"
