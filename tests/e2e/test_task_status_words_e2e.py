"""set_task_status over HTTP with the SDK client: a status word longer than 'in_progress' that is no
status type is answered as any other word is, naming the four it takes, with the note unchanged.
Before, a word over 11 characters ('completed_task') was 'String should have at most 11
characters' (reason too_large), which names no status to retry with."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

NOTE = "# T\n- [ ] a\n"


@pytest.mark.parametrize("status", ["completed_task", "Not started yet"])
async def test_a_long_word_is_refused_naming_the_status_types(
    make_vault: Callable[..., Path], mode: str, status: str
) -> None:
    root = make_vault({"T.md": NOTE})
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            refused = await error(c, "set_task_status", path="T", line=2, status=status, expected_text="a")
            assert refused["code"] == "validation_error", refused
            assert "todo, in_progress, done, cancelled" in refused["message"], refused
            done = await ok(c, "set_task_status", path="T", line=2, status="Done", expected_text="a")
            assert done["status_type"] == "done", done
    assert (root / "T.md").read_text(encoding="utf-8").startswith("# T\n- [x] a")
