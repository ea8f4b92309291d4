"""rewrite_links: links left dangling by a move outside vaultgate are repaired, previews first
(the vault and its links are those of the move tests, tests/tools/notes/test_moves.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.tools.graph.rewrite import RewriteLinksIn, confirm_rewrite
from tests.conftest import Harness, started
from tests.tools.helpers import tool_context
from tests.tools.notes.test_moves import VAULT, _resolved_backlinks


@pytest.fixture
async def vault(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT)) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.covers("rewrite_links", "success")
async def test_rewrite_links_repairs_links_after_an_outside_move(vault: Harness) -> None:
    # Someone moved the note outside vaultgate: the links now dangle.
    (vault.root / "Work").mkdir()
    (vault.root / "Projects/Plan.md").rename(vault.root / "Work/Strategy.md")
    harness_vault = next(iter(vault.app.services.vaults.values()))
    from service.vault.events import FileChange

    await harness_vault.bus.publish([FileChange("moved", "Work/Strategy.md", old_path="Projects/Plan.md")])
    before = vault.snapshot()
    preview = await vault.ok("rewrite_links", old_target="Projects/Plan", new_target="Work/Strategy")
    assert preview["dry_run"] is True and vault.snapshot() == before
    assert {i["path"] for i in preview["items"]} == {"Home.md", "Daily/Day.md"}
    done = await vault.confirmed("rewrite_links", old_target="Projects/Plan", new_target="Work/Strategy", dry_run=False)
    assert done["links_rewritten"] == 3
    assert "Bare [[Strategy]], aliased [[Strategy|the plan]]" in vault.read("Home.md")
    assert len(await _resolved_backlinks(vault, "Work/Strategy.md")) == 7


@pytest.mark.covers("rewrite_links", "failure")
async def test_rewrite_links_failures_and_confirmation(vault: Harness) -> None:
    before = vault.snapshot()
    await vault.err("rewrite_links", "note_not_found", old_target="Projects/Plan", new_target="Nope", dry_run=False)
    await vault.err("rewrite_links", "path_invalid", old_target="/abs", new_target="Other", dry_run=False)
    assert vault.snapshot() == before
    ctx = tool_context(vault)
    assert await confirm_rewrite(ctx, RewriteLinksIn(old_target="Projects/Plan", new_target="Other")) is None
    text = await confirm_rewrite(ctx, RewriteLinksIn(old_target="Projects/Plan", new_target="Other", dry_run=False))
    assert text is not None and "Home.md" in text.text() and text.files is not None and "Home.md" in text.files
