"""Arguments nested far deeper than any front lets through (they cap nesting at 200) still get a
structured `validation_error` from the dispatch chain, never `internal_error`: an in-process
caller passes Python values straight to the chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": [value]}
    return value


async def test_arguments_nested_thousands_deep_are_a_validation_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        before = vg.snapshot()
        for tool, args in (
            ("read_note", {"path": "A.md", "deep": _nested(5000)}),
            ("write_note", {"path": "B.md", "content": "x", "deep": _nested(2000)}),
        ):
            error = await vg.err(tool, "validation_error", **args)
            assert error["details"]["reason"] == "too_deep", error
        assert vg.snapshot() == before
        assert (await vg.ok("read_note", path="A.md"))["path"] == "A.md"  # the chain still serves
