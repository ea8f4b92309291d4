"""The audit's unlinked mentions name notes only: a canvas or an attachment is titled by its
basename too ('Maps/Board.canvas' is 'Board', 'img/Sunset.png' is 'Sunset'), and a sentence
that says "the Board" or "the sunset" does not mean to link the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import findings, of_kind, run

NODE = '{"id": "a", "type": "file", "file": "Plans/Launch.md", "x": 0, "y": 0, "width": 200, "height": 80}'
CANVAS = '{"nodes": [' + NODE + '], "edges": []}'


async def test_a_word_that_is_a_canvas_or_image_title_is_no_unlinked_mention(make_vault: Callable[..., Path]) -> None:
    vault = {
        "Maps/Board.canvas": CANVAS,
        "Plans/Launch.md": "# Launch\n\nSee [[Board.canvas]] and ![[Sunset.png]].\n",
        "Plans/Review.md": "# Review\n\nOn [[Board.canvas]].\n",
        "Plans/Budget.md": "# Budget\n\n[[Board.canvas]] again.\n",
        "Notes/Mention.md": "# Mention\n\nWe put it on the Board, under the Sunset, before the Launch.\n",
    }
    root = make_vault(vault)
    (root / "img").mkdir()
    (root / "img/Sunset.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    async with started(root) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        found = {(m["detail"]["path"], m["detail"]["target"]) for m in of_kind(await findings(vg), "unlinked_mention")}
    assert found == {("Notes/Mention.md", "Plans/Launch.md")}  # the note's title is a mention; the board's is not
