"""move_note's source: what `path` names is the same for every caller; the write scope only
decides whether the call may act on it (a folder the caller may not read stays unrevealed)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.types import Principal
from tests.conftest import Harness, started

VAULT = {
    "Daily/2026-11-22.md": "# Day\n",
    "Templates/Daily.md": "# Daily template\n",
    "Templates/Ghost.md": "# Ghost\n",
    "Private/Secret.md": "# Secret\n",
}
TEMPLATES_WRITER = frozenset({"read:vault", "write:vault/Templates/**", "delete:vault/Templates/**"})
TEMPLATES_ONLY = frozenset({"read:vault/Templates/**", "write:vault/Templates/**", "delete:vault/Templates/**"})


@pytest.fixture
async def vault(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT)) as harness:
        await harness.indexed()
        yield harness


async def test_a_folder_the_caller_may_read_but_not_write_is_refused_not_swapped_for_a_note(vault: Harness) -> None:
    full = await vault.ok("move_note", path="Daily", new_path="Templates/Moved", dry_run=True)
    assert full["moved"] == [{"old_path": "Daily/2026-11-22.md", "new_path": "Templates/Moved/2026-11-22.md"}]
    vault.principal = Principal("narrow", TEMPLATES_WRITER, authenticated=True)
    for dry_run in (True, False):
        error = await vault.err("move_note", "acl_denied", path="Daily", new_path="Templates/Moved", dry_run=dry_run)
        assert error["details"]["path"] == "Daily"
    assert (vault.root / "Templates/Daily.md").is_file() and not (vault.root / "Templates/Moved.md").exists()
    assert (vault.root / "Daily/2026-11-22.md").is_file()


async def test_a_folder_the_caller_may_not_read_answers_as_if_it_were_not_there(vault: Harness) -> None:
    vault.principal = Principal("narrow", TEMPLATES_ONLY, authenticated=True)
    # 'Daily' is a folder this caller cannot see: the address names the note, as for 'Ghost' (no folder).
    daily = await vault.ok("move_note", path="Daily", new_path="Templates/Moved", dry_run=True)
    ghost = await vault.ok("move_note", path="Ghost", new_path="Templates/Moved", dry_run=True)
    assert daily["moved"] == [{"old_path": "Templates/Daily.md", "new_path": "Templates/Moved.md"}]
    assert ghost["moved"] == [{"old_path": "Templates/Ghost.md", "new_path": "Templates/Moved.md"}]
    # An unreadable folder no note fits answers as a name that is nowhere.
    hidden = await vault.err("move_note", "acl_denied", path="Private", new_path="Templates/P", dry_run=True)
    absent = await vault.err("move_note", "acl_denied", path="Nowhere", new_path="Templates/P", dry_run=True)
    assert hidden["details"]["rule"] == absent["details"]["rule"]
