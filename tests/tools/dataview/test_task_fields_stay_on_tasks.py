"""A field written on a task's line is the task's own, never its page's, as in Dataview (its page
import merges into the page the fields of plain list items and of other lines, not those of tasks):
a property `due` and a task's `[due:: …]` leave the page's `due` the property's date, so
`due - date(…)` is a duration, while the task's `due` is its own. Before, the page's `due` was a
list of both and that difference was null. A field on a plain list item is still the page's too.
An index built before reads such notes again (migration 0030)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

RENT = "---\ndue: 2024-01-02\n---\n# Rent\n\n- [ ] pay rent [due:: 2024-01-05] [owner:: Ann]\n"
MIXED = (
    "---\ndue: 2024-01-02\n---\n# Mixed\n\n"
    "- [ ] pay [due:: 2024-01-05]\n"
    "- [ ] due:: 2024-01-09\n"  # a task's line is no line field either
    "- call bank [due:: 2024-01-07]\n"  # a plain list item: the page's too
    "> - [x] quoted task (due:: 2024-01-08)\n\n"
    "Paid by [payer:: Bob].\n"
)
FILES = {"Rent.md": RENT, "Mixed.md": MIXED}


async def _field(vg: Harness, path: str, field: str) -> dict[str, Any]:
    out: dict[str, Any] = (await vg.ok("eval_dataview_field", path=path, field=field))["fields"][field]
    return out


async def _page_fields_as_dataview_has_them(vg: Harness) -> None:
    assert await _field(vg, "Rent", "due") == {"type": "date", "value": "2024-01-02"}
    assert await _field(vg, "Rent", "due - date(2024-01-01)") == {
        "type": "duration",
        "value": {"months": 0, "seconds": 86400},
    }
    assert await _field(vg, "Rent", "owner") == {"type": "null", "value": None}
    assert await _field(vg, "Mixed", "due") == {
        "type": "array",
        "value": ["2024-01-02", "2024-01-07"],
        "types": ["date", "date"],
    }
    assert await _field(vg, "Mixed", "payer") == {"type": "string", "value": "Bob"}
    fields = (await vg.ok("eval_dataview_field", path="Rent"))["fields"]
    assert "owner" not in fields and fields["due"]["type"] == "date"


async def test_a_tasks_fields_are_its_own_not_its_pages(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _page_fields_as_dataview_has_them(vg)
        tasks = await vg.ok("search_dql", query='TASK FROM "Rent"')
        own = tasks["rows"][0]["fields"]
        assert own["due"] == {"type": "date", "value": "2024-01-05"} and own["owner"]["value"] == "Ann"
        out = await vg.ok("search_dql", query='TASK FROM "Mixed" SORT line ASC')
        own_dues = [r["fields"].get("due", {}).get("value") for r in out["rows"]]
        assert own_dues == ["2024-01-05", None, "2024-01-08"]  # `- [ ] due:: …` is no field of the task either
        out = await vg.ok("search_dql", query='TASK FROM "Mixed" WHERE due = date(2024-01-08)')
        assert [r["text"] for r in out["rows"]] == ["quoted task (due:: 2024-01-08)"]
        pages = await vg.ok("search_dql", query='TABLE due WHERE owner = "Ann"')
        assert pages["rows"] == []


async def test_an_index_built_before_reads_those_notes_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the facts as the reading before 0030 wrote them: task fields the page's
    with conn:
        conn.execute(
            "UPDATE dataview_facts SET facts = json_set(facts, '$.f', json(?)) "
            "WHERE note_id = (SELECT id FROM notes WHERE path = 'Rent.md')",
            ('[["due", "2024-01-05", 5], ["owner", "Ann", 5]]',),
        )
        conn.execute("DELETE FROM schema_migrations WHERE version = 30")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        await _page_fields_as_dataview_has_them(vg)
