"""Frontmatter nested past what libyaml reads (`a: [[[[…]]]]`, 2,000 levels in 4 KB) is refused
before ruamel's round-trip loader sees it. Before, every get_properties and property edit of such
a note handed it to ruamel, which recursed to Python's limit (~4 s of CPU for the 4 KB block, off
the loop but holding the GIL against it) and answered `RecursionError`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.markdown import yaml_edit
from tests.conftest import started

DEEP = {
    "Flow.md": "---\ntitle: deep\na: " + "[" * 2000 + "]" * 2000 + "\n---\n# Flow\n",
    "Map.md": "---\na: " + "{b: " * 2000 + "1" + "}" * 2000 + "\n---\n# Map\n",
}


@pytest.mark.parametrize("path", sorted(DEEP))
async def test_a_block_nested_past_libyaml_s_limit_never_reaches_the_round_trip_loader(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    root = make_vault({**DEEP, "Other.md": "---\nk: v\n---\n"})
    handed: list[str] = []
    real = yaml_edit._yaml

    def counted(raw: str) -> Any:
        handed.append(raw[:20])
        return real(raw)

    monkeypatch.setattr(yaml_edit, "_yaml", counted)
    async with started(root) as vg:
        await vg.indexed()
        props = await vg.ok("get_properties", path=path)
        assert props["properties"] == {} and "nested deeper than YAML is read" in props["frontmatter_error"]
        error = await vg.err("set_properties", "validation_error", path=path, properties={"k": "v"})
        assert error["details"]["reason"] == "invalid_frontmatter"
        assert handed == []
        assert (await vg.ok("get_properties", path="Other.md"))["properties"] == {"k": "v"}
        assert handed  # the round-trip loader still reads every other note
    assert (root / path).read_text(encoding="utf-8") == DEEP[path]
