"""`require_read_only`: a mutating tool does not exist for callers, on every path into the chain (T4 item 4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

VAULT = {"Welcome.md": "# Welcome\n", "A.md": "# A\n"}
READ_ONLY = {"require_read_only": True}


@pytest.mark.parametrize("facade", ["flat", "lean", "triad", "domain"])
async def test_a_mutating_tool_called_by_name_is_an_unknown_tool(make_vault: Callable[..., Path], facade: str) -> None:
    async with started(make_vault(VAULT), tool_visibility=READ_ONLY, tool_facade={"mode": facade}) as vg:
        before = vg.snapshot()
        unknown = await vg.err("no_such_tool", "not_found")
        for tool, args in (
            ("create_note", {"path": "direct", "content": "x"}),
            ("delete_note", {"path": "Welcome.md"}),
            ("append_note", {"path": "A", "content": "x\n"}),
            ("write_note", {"path": "A", "content": "x", "mode": "overwrite"}),
        ):
            refused = await vg.err(tool, "not_found", **args)
            assert refused["message"].replace(tool, "X") == unknown["message"].replace("no_such_tool", "X")
            await vg.err("call_capability", "not_found", name=tool, arguments=args)
        assert vg.snapshot() == before
        assert (await vg.ok("read_note", path="A"))["content"] == "# A\n"  # reads still run


async def test_every_mutating_tool_of_the_registry_is_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_visibility=READ_ONLY, tool_facade={"mode": "flat"}) as vg:
        mutating = [s for s in vg.app.registry if s.mutating and "facade" not in s.tags]
        assert mutating
        for spec in mutating:
            await vg.err(spec.name, "not_found")
