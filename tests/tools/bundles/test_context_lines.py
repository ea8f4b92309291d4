"""context_for_query cites a passage by the lines where the passage itself sits (issue 41, item 5):
a first line that also occurs earlier in the note (a heading listed in a contents section, a
sentence quoted twice) does not pull the range back to that earlier place."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.semantic.helpers import semantic

FILLER = "\n\n".join(f"## Part {i}\nUnrelated text about gardening and tomatoes, paragraph {i}." for i in range(12))
HISTORY = (
    "# Version history\n\n"
    "## Contents\n"
    "### Restore a deleted file\n"
    "Restore a deleted file from the version history of its folder.\n\n"
    f"{FILLER}\n\n"
    "### Restore a deleted file\n"
    "Restore a deleted file from the version history of its folder.\n"
    "Open the sidebar, choose the deleted zeppelin manifest and pick the snapshot to bring back.\n"
)


async def test_a_passage_is_cited_where_it_is_not_where_its_first_line_first_occurs(
    make_vault: Callable[..., Path],
) -> None:
    async with semantic(make_vault({"Sync/Version history.md": HISTORY})) as h:
        out = await h.ok("context_for_query", query="restore the deleted zeppelin manifest snapshot", max_tokens=2000)
        lines = HISTORY.splitlines()
        heading = max(i for i, line in enumerate(lines) if line == "### Restore a deleted file") + 1
        [passage] = [p for p in out["passages"] if "zeppelin" in p["text"]]
        span = passage["lines"]
        assert span is not None
        text = [line for line in passage["text"].splitlines() if line.strip()]
        assert span["start"] >= heading - 1 and span["end"] == len(lines), (span, heading)
        quoted = [line for line in lines[span["start"] - 1 : span["end"]] if line.strip()]
        assert quoted[-len(text) :] == text or text[0] in quoted[0], (quoted, text)
