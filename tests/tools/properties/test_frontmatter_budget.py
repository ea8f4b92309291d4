"""A huge frontmatter is bounded: edits refuse it before the round-trip loader sees it, and
get_properties reads it as the index does (T6 #6: 100,000 keys held the server for minutes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.markdown import yaml_edit
from tests.conftest import started

# Just past the round-trip budget: ~5,900 keys, 68 KB (the old code took seconds per call on it).
BIG = "---\n" + "".join(f"key{i}: value {i}\n" for i in range(5_900)) + "---\n# Big\n\nbody\n"


def test_the_fixture_is_past_the_budget() -> None:
    assert len(BIG) > yaml_edit.MAX_ROUND_TRIP_CHARS


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("set_properties", {"properties": {"status": "done"}}),
        ("delete_property", {"key": "key1"}),
        ("add_tags", {"tags": ["x"]}),
        ("remove_tags", {"tags": ["x"]}),
    ],
)
async def test_an_edit_of_a_frontmatter_past_the_budget_is_refused_and_writes_nothing(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    async with started(make_vault({"Big.md": BIG})) as vg:
        before = vg.snapshot()
        error = await vg.err(tool, "compute_budget_exceeded", path="Big", **args)
        assert error["details"]["limit"] == "frontmatter_size"
        assert error["details"]["max"] == yaml_edit.MAX_ROUND_TRIP_CHARS
        assert vg.snapshot() == before


async def test_get_properties_reads_a_frontmatter_past_the_budget_without_the_round_trip_loader(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(raw: str) -> Any:
        raise AssertionError("the round-trip loader was given a frontmatter past the budget")

    async with started(make_vault({"Big.md": BIG, "Small.md": "---\ntime: 12:30\nn: 010\n---\nbody\n"})) as vg:
        monkeypatch.setattr(yaml_edit, "_yaml", refuse)
        out = await vg.ok("get_properties", path="Big")
        assert out["frontmatter_error"] is None
        assert len(out["properties"]) == 5_900 and out["properties"]["key5899"] == "value 5899"
        monkeypatch.undo()
        # Within the budget the round-trip reading stays (YAML 1.2: `12:30` is text, `010` is 10).
        small = await vg.ok("get_properties", path="Small")
        assert small["properties"] == {"time": "12:30", "n": 10}
