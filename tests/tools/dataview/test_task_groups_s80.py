"""Session 80 (D1): a TASK query with a second GROUP BY, or a FLATTEN after its GROUP BY, answered
internal_error (KeyError: the renderer read every member of a group as a task). Dataview nests the
groups (engine.ts extractTaskGroupings: `{key, rows}` of `{key, rows}`); `FLATTEN rows` leaves one
task per group row. A FLATTEN of another value is a query error naming what it found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES = {
    "A.md": "- [ ] one\n- [x] two\n",
    "B.md": "- [ ] three\n",
}


async def test_grouped_tasks_regrouped_or_flattened(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        nested = await vg.ok("search_dql", query="TASK GROUP BY file.name GROUP BY length(rows)")
        assert nested["grouped"] is True and [g["id"]["value"] for g in nested["rows"]] == [1, 2]
        inner = nested["rows"][0]["tasks"]
        assert [g["id"]["value"] for g in inner] == ["B"] and [t["text"] for t in inner[0]["tasks"]] == ["three"]
        assert inner[0]["tasks"][0]["obsidian_url"].endswith("B.md")
        flat = await vg.ok("search_dql", query="TASK GROUP BY file.name FLATTEN rows")
        assert [(g["id"]["value"], [t["text"] for t in g["tasks"]]) for g in flat["rows"]] == [
            ("A", ["one"]),
            ("A", ["two"]),
            ("B", ["three"]),
        ]
        bad = await vg.err("search_dql", "query_syntax_error", query="TASK GROUP BY file.name FLATTEN 5 AS rows")
        assert bad["details"]["found"] == "number"


async def test_a_task_flattened_into_path_keeps_its_notes_path(make_vault: Callable[..., Path]) -> None:
    """`TASK FLATTEN 1 AS path` answered internal_error (the number was read as the task's note
    path for its URL); the task keeps its note's path, grouped or not."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TASK FROM "B" FLATTEN 1 AS path')
        assert [(t["path"], t["text"]) for t in out["rows"]] == [("B.md", "three")]
        assert out["rows"][0]["obsidian_url"].endswith("B.md")
        grouped = await vg.ok("search_dql", query='TASK FROM "B" FLATTEN 1 AS path GROUP BY text')
        assert grouped["rows"][0]["tasks"][0]["path"] == "B.md"
