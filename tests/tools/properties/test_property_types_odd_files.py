"""`.obsidian/types.json` of shapes Obsidian never writes: the names it types well still count,
the rest is left out, and no call fails on it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

ODD = [
    {"types": {"rating": "number", "genre": ["multitext"], "meta": {"type": "text"}, "n": 3, "z": None}},
    {"types": {"rating": "number", "list": [], "obj": {}}},
]


@pytest.mark.parametrize("types", ODD)
async def test_a_list_or_object_as_a_type_is_no_type(make_vault: Callable[..., Path], types: object) -> None:
    files: dict[str, str | bytes] = {"Blank.md": "# Blank\n", ".obsidian/types.json": json.dumps(types)}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("set_properties", path="Blank", properties={"rating": "4", "genre": "drama", "meta": "x"})
        assert out["properties"] == {"rating": 4, "genre": "drama", "meta": "x"}
        await vg.settled()
        listed = {i["key"]: i["declared"] for i in (await vg.ok("list_properties"))["items"]}
        assert listed == {"rating": "number", "genre": None, "meta": None}
