"""An edit of one property keeps every other property's line as written (U13, session 79).

set_properties (and every tool that edits the frontmatter through `service.markdown.yaml_edit`)
writes the whole block back through ruamel. Three kinds of values came back changed:
- `k: !!str 5` came back `k: !!%20str 5`: the block then named a tag no reader knows, and the
  note's every property was lost to the index and to Obsidian (`yaml_edit` gave ruamel the plain
  `Emitter`, not its `RoundTripEmitter`, which writes a kept tag's handle and suffix);
- a float with more digits than a double holds, or past its range, came back as the double
  (`3.14159265358979323846` as `3.14159265358979311600`, `1e-999` as `0e+000`, `1e999` as `.inf`);
- a date and time with nanoseconds came back cut to microseconds (`.123456789Z` as `.123457Z`).
Each is now read as before and written back as its text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

KEPT = [
    "s: !!str 5",
    "pi: 3.14159265358979323846",
    "big: 1e999",
    "tiny: 1e-999",
    "at: 2024-01-01T10:00:00.123456789Z",
    "zoned: 2024-01-01T10:00:00.123456789+05:00",
    "list: [!!str 1, 2.718281828459045235360287]",
    "plain: 1.5",
]
NOTE = "---\n" + "\n".join(KEPT) + "\ntags: [a]\n---\n# Body\n"
EDITS: list[tuple[str, dict[str, Any]]] = [
    ("set_properties", {"properties": {"new": 1}}),
    ("add_tags", {"tags": ["b"]}),
    ("delete_property", {"key": "plain"}),
]


@pytest.mark.covers("set_properties", "success")
@pytest.mark.parametrize(("tool", "args"), EDITS, ids=[e[0] for e in EDITS])
async def test_an_edit_keeps_the_other_properties_as_written(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault({"N.md": NOTE})
    async with started(root) as vg:
        before = await vg.ok("get_properties", path="N")
        assert before["frontmatter_error"] is None
        await vg.ok(tool, path="N", **args)
        after = await vg.ok("get_properties", path="N")
        await vg.ok("set_properties", path="N", properties={"new": 2})  # and again, on the edited block
        text = vg.read("N.md")
    lines = text.split("\n")
    for line in KEPT:
        if not (tool == "delete_property" and line.startswith("plain:")):
            assert line in lines, (line, text)
    assert after["frontmatter_error"] is None, after
    kept = {k: v for k, v in after["properties"].items() if k not in ("new", "tags")}
    want = {
        k: v
        for k, v in before["properties"].items()
        if k != "tags" and not (tool == "delete_property" and k == "plain")
    }
    assert kept == want
    assert before["properties"]["s"] == "5" and before["properties"]["pi"] == 3.141592653589793
