"""add_tags with inline=true: #tags at the end of the body or of a heading's section."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "---\ntags: [a]\n---\n# Title\n\n## Notes\n- one #b\n\n## Later\nend"


@pytest.mark.covers("add_tags", "success")
async def test_add_tags_inline_at_the_end_or_under_a_heading(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": NOTE})) as vg:
        out = await vg.ok("add_tags", path="N", tags=["#c", "a", "B", "d/e"], inline=True)
        assert out["changed"] is True
        assert vg.read("N.md") == NOTE + "\n#c #d/e\n"
        await vg.ok("add_tags", path="N", tags=["x"], inline=True, heading=["Title", "Notes"])
        assert vg.read("N.md") == NOTE.replace("- one #b\n", "- one #b\n\n#x\n") + "\n#c #d/e\n"
        again = await vg.ok("add_tags", path="N", tags=["x", "c"], inline=True)
        assert again["changed"] is False


async def test_add_tags_inline_failures_change_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": NOTE})) as vg:
        before = vg.snapshot()
        error = await vg.err("add_tags", "validation_error", path="N", tags=["x"], inline=True, heading=["Nope"])
        assert error["details"]["reason"] == "not_found"
        await vg.err("add_tags", "validation_error", path="N", tags=["x"], heading=["Notes"])
        await vg.err("add_tags", "validation_error", path="N", tags=["bad tag"], inline=True)
        assert vg.snapshot() == before
