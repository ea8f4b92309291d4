"""One title rule for every file, Obsidian's `file.basename` (the file name less its last extension):
a canvas is 'Board' in read_canvas, search, attachment listings, backlinks and Bases alike, an image
'photo', a drawing note 'Plan.excalidraw'; an index written under the older '.md'-only rule is
retitled by migrations/0021_basename_titles.sql without re-indexing (T8 #8, issue 13 §3)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.markdown.parse import note_title
from tests.conftest import Harness, e2e, started
from tests.e2e.calls import ok
from tests.tools.obsidian.test_attachments import png

BOARD = {
    "nodes": [
        {"id": "f1", "type": "file", "file": "Projects/Launch plan.md", "x": 0, "y": 0, "width": 200, "height": 100},
        {"id": "t1", "type": "text", "text": "hello zeppelin board", "x": 300, "y": 0, "width": 200, "height": 100},
    ],
    "edges": [],
}
FILES: dict[str, str | bytes] = {
    "Projects/Launch plan.md": "# Launch\n\n![[photo.png]]\n",
    "Maps/Board.canvas": json.dumps(BOARD),
    "img/photo.png": png(4, 4),
    "Canvases.base": 'views:\n  - {name: v, type: table, filters: file.ext == "canvas"}\n',
}


@pytest.mark.parametrize(
    ("rel", "title"),
    [
        ("Note.md", "Note"),
        ("Maps/Board.canvas", "Board"),
        ("img/photo.png", "photo"),
        ("Drawings/Plan.excalidraw.md", "Plan.excalidraw"),
        ("a.b/v1.2 notes.md", "v1.2 notes"),
        ("README", "README"),
        (".hidden", ".hidden"),
    ],
)
def test_note_title_is_obsidians_basename(rel: str, title: str) -> None:
    assert note_title(rel) == title


async def titles(vg: Harness) -> dict[str, Any]:
    """What each answer calls Maps/Board.canvas (and img/photo.png where listed)."""

    def of(items: list[dict[str, Any]], path: str = "Maps/Board.canvas") -> Any:
        return next((i["title"] for i in items if i["path"] == path), None)

    attachments = (await vg.ok("list_attachments"))["items"]
    return {
        "read_canvas": (await vg.ok("read_canvas", path="Board"))["title"],
        "search_text": of((await vg.ok("search_text", query="zeppelin"))["items"]),
        "list_attachments": of(attachments),
        "get_backlinks": of((await vg.ok("get_backlinks", path="Launch plan"))["items"]),
        "list_notes": of((await vg.ok("list_notes", include_attachments=True))["items"]),
        "query_base": of((await vg.ok("query_base", path="Canvases.base"))["rows"]),
        "photo listed": of(attachments, "img/photo.png"),
        "photo read": (await vg.ok("read_attachment", path="img/photo.png"))["title"],
    }


EXPECTED = {
    "read_canvas": "Board",
    "search_text": "Board",
    "list_attachments": "Board",
    "get_backlinks": "Board",
    "list_notes": "Board",
    "query_base": "Board",
    "photo listed": "photo",
    "photo read": "photo",
}


@pytest.mark.covers("read_canvas", "success")
async def test_a_fresh_index_titles_every_file_by_its_basename(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await titles(vg) == EXPECTED
        row = await vg.app.db.fetchone("SELECT title FROM notes WHERE path = 'Maps/Board.canvas'")
        assert row is not None and row[0] == "Board"


async def test_an_index_written_under_the_old_rule_is_retitled_without_reindexing(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    # The index as the '.md'-only rule wrote it, before migration 0021.
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE notes SET title = 'Board.canvas' WHERE path = 'Maps/Board.canvas'")
        conn.execute("DELETE FROM schema_migrations WHERE version = 21")
        indexed_at = conn.execute("SELECT indexed_at FROM notes WHERE path = 'Maps/Board.canvas'").fetchone()[0]
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        assert await titles(vg) == EXPECTED
        row = await vg.app.db.fetchone("SELECT title, indexed_at FROM notes WHERE path = 'Maps/Board.canvas'")
        assert row is not None and tuple(row) == ("Board", indexed_at)  # the migration did it, not a re-index
        hits = await vg.app.db.fetchall("SELECT rowid FROM fts_words WHERE fts_words MATCH 'title:board'")
        assert len(hits) == 1  # the full-text title stays the basename


async def test_read_canvas_and_search_agree_over_http(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url) as client:
            canvas = await ok(client, "read_canvas", path="Board")
            found = await ok(client, "search_text", query="zeppelin")
            listed = await ok(client, "list_attachments", kind="canvas")
    assert canvas["title"] == "Board"
    assert [(i["path"], i["title"]) for i in found["items"]] == [("Maps/Board.canvas", "Board")]
    assert [(i["path"], i["title"]) for i in listed["items"]] == [("Maps/Board.canvas", "Board")]
