"""A field written both as a frontmatter property and as an inline field is a list of both values,
as Dataview merges them (the property first, then the inline values in order; a property that is a
list stays one item of it), and each value keeps its Dataview type: dates stay dates. In the answer
a date's value is its ISO text, so an array or object holding dates, durations or links also
carries `types`, their type names by position (null for an item whose JSON tells its type) or by
key. Before, `{"type": "array", "value": ["2024-01-02", "2024-01-05"]}` read as two strings.

What Dataview shows is worked out from its page import (frontmatter values first, each typed as a
date, duration or link when its text reads as one, then the inline values; one value alone, two or
more a list), by hand for each note below."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

FILES = {
    "A.md": "---\ndue: 2024-01-02\n---\n# A\n\ndue:: 2024-01-05\n",
    "B.md": "---\ndue: [2024-01-02, 2024-01-03]\n---\n# B\n\nSee [due:: 2024-01-05] then.\n",
    "C.md": "---\ndue: 2024-01-02T10:30\nspan: 3 days\n---\n# C\n\n- due:: [[A]]\n- span:: 2 hours\n",
    "D.md": "---\ndue: 2024-01-02\n---\n# D\n",
    "E.md": "# E\n\ndue:: 2024-01-05\ndue:: soon\n",
    "F.md": "---\ndue: [a, b]\nplan:\n  start: 2024-02-01\n  owner: Ann\n---\n# F\n",
}
# Dataview's values, typed as its page import makes them.
DATAVIEW = {
    "A": {"type": "array", "value": ["2024-01-02", "2024-01-05"], "types": ["date", "date"]},
    "B": {
        "type": "array",
        "value": [["2024-01-02", "2024-01-03"], "2024-01-05"],
        "types": [["date", "date"], "date"],
    },
    "C": {
        "type": "array",
        "value": ["2024-01-02T10:30:00", {"path": "A.md", "link": "[[A]]"}],
        "types": ["date", "link"],
    },
    "D": {"type": "date", "value": "2024-01-02"},
    "E": {"type": "array", "value": ["2024-01-05", "soon"], "types": ["date", None]},
    "F": {"type": "array", "value": ["a", "b"]},
}


def _plain(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell without the obsidian_url the tool adds to links (not part of the value's type)."""
    value = cell["value"]
    if isinstance(value, list):
        value = [{k: v for k, v in x.items() if k != "obsidian_url"} if isinstance(x, dict) else x for x in value]
    return {**cell, "value": value}


async def _field(vg: Harness, path: str, field: str) -> dict[str, Any]:
    return _plain((await vg.ok("eval_dataview_field", path=path, field=field))["fields"][field])


async def test_merged_values_keep_their_types(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for name, expected in DATAVIEW.items():
            assert await _field(vg, name, "due") == expected, name
            whole = (await vg.ok("eval_dataview_field", path=name))["fields"]
            assert _plain(whole["due"]) == expected, name
        out = await vg.ok("search_dql", query='TABLE due, typeof(due) AS t FROM "" SORT file.name ASC')
        assert [_plain(r["cells"][0]) for r in out["rows"]] == list(DATAVIEW.values())
        # the values are dates, not texts: date arithmetic on the merged list's items
        assert await _field(vg, "A", "due[1] - due[0]") == {
            "type": "duration",
            "value": {"months": 0, "seconds": 259200},
        }
        assert await _field(vg, "A", "map(due, (d) => d.day)") == {"type": "array", "value": [2, 5]}
        assert await _field(vg, "C", "span") == {
            "type": "array",
            "value": [{"months": 0, "seconds": 259200}, {"months": 0, "seconds": 7200}],
            "types": ["duration", "duration"],
        }
        plan = await _field(vg, "F", "plan")
        assert plan == {"type": "object", "value": {"start": "2024-02-01", "owner": "Ann"}, "types": {"start": "date"}}
        listed = await vg.ok("search_dql", query='LIST due FROM "A"')
        assert listed["rows"][0]["value"]["types"] == ["date", "date"]
