"""create_note's `frontmatter` is written as the property tools write properties, as Obsidian
does (N2, session 77; B1's s76 find): its own ruamel dumper wrote `- '[[X]]'` unindented and
single-quoted, `e: '145'`, `summary: "a\\nb"`, a quoted date, and a text holding U+0085 raw, which
read back as 'a b'. Now one writer (`yaml_edit`): `  - "[[X]]"`, double quotes only where needed,
a literal block for a text of several lines, an ISO date unquoted. Read back through the property
tools it is what was given; a set_properties afterwards changes its own line and nothing else.
Through the whole dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

GIVEN: dict[str, Any] = {
    "tags": ["trip", "japan"],
    "related": ["[[Kyoto]]", "[[Osaka|the city]]"],
    "code": "145",
    "count": 3,
    "summary": "Temples first.\nThen food.",
    "when": "2024-02-01",
    "note": "a\x85b",
    "draft": True,
}
OBSIDIAN = (
    "---\n"
    "tags:\n  - trip\n  - japan\n"
    'related:\n  - "[[Kyoto]]"\n  - "[[Osaka|the city]]"\n'
    'code: "145"\n'
    "count: 3\n"
    "summary: |-\n  Temples first.\n  Then food.\n"
    "when: 2024-02-01\n"
    'note: "a\\Nb"\n'
    "draft: true\n"
    "---\n# Trip\n"
)


@pytest.mark.covers("create_note", "success")
async def test_create_note_writes_frontmatter_as_obsidian_and_the_property_tools_keep_it(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Kyoto.md": "# Kyoto\n"})
    async with started(root) as vg:
        await vg.ok("create_note", path="Trips/Trip", content="# Trip\n", frontmatter=GIVEN)
        assert (root / "Trips/Trip.md").read_text(encoding="utf-8") == OBSIDIAN
        properties = (await vg.ok("get_properties", path="Trip"))["properties"]
        assert properties == GIVEN, properties
        await vg.ok("set_properties", path="Trip", properties={"count": 4})
        after = (root / "Trips/Trip.md").read_text(encoding="utf-8")
        assert after == OBSIDIAN.replace("count: 3\n", "count: 4\n"), after
        await vg.ok("set_properties", path="Trip", properties={"summary": "Temples first.\nThen food.\nThen rest."})
        after = (root / "Trips/Trip.md").read_text(encoding="utf-8")
        expected = OBSIDIAN.replace("count: 3\n", "count: 4\n").replace("Then food.\n", "Then food.\n  Then rest.\n")
        assert after == expected, after
