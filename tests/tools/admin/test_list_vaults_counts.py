"""list_vaults counts a vault's notes with one SQL count for a caller no rule restricts. It asked
the path guard about every note (13,415 on a real zettelkasten: 70-350 ms of the event loop a
call, ~2.5 s while the index loaded); a restricted caller still gets the count of the notes it may
read, so the figure never reveals a denied folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

FILES = {f"Notes/N{i}.md": f"# {i}\n" for i in range(40)} | {"Secret/S.md": "# S\n", "Board.canvas": "{}"}


async def test_an_unrestricted_caller_gets_the_count_without_a_check_per_note(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        guard = vg.app.services.guard
        asked: list[str] = []
        allows = guard.allows

        def counting(principal: Any, vault: Any, rel: str, op: str) -> bool:
            asked.append(rel)
            return bool(allows(principal, vault, rel, op))

        monkeypatch.setattr(guard, "allows", counting)
        out = await vg.ok("list_vaults")
    assert out["items"][0]["notes"] == 41 and asked == []


async def test_a_restricted_caller_counts_only_what_it_may_read(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl={"prefix_rules": [{"path": "Secret", "read": "deny"}]}) as vg:
        await vg.indexed()
        assert (await vg.ok("list_vaults"))["items"][0]["notes"] == 40
