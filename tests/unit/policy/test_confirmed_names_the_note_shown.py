"""A confirmed write or permanent delete acts on the note its confirmation showed, or answers
`conflict`: between the preview's lookup and the handler's, the name may come to mean another
note (another program makes one that the name now finds), and that note was never shown
(review R2 s63 #1: a confirmed write_note replaced another program's Plugins/Foo.md, a confirmed
permanent delete removed a new root Foo.md while the approved Plugins/Foo.md stayed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.context import ToolContext
from service.tools.notes import write as write_mod
from tests.conftest import started

THEIRS = "# Theirs\n\nlong text another program wrote\n"


async def test_a_confirmed_overwrite_of_a_name_that_found_another_note_is_a_conflict(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    over = {"vaults": [{"id": "main", "path": root, "write_mode": "confirm"}]}
    async with started(root, **over) as vg:
        args = {"path": "Foo", "content": "mine\n", "mode": "overwrite"}
        token = await vg.token_for("write_note", **args)  # the preview: a new Foo.md
        real = write_mod.existing_or_new
        seen: list[str] = []

        async def hooked(ctx: Any, address: str) -> Any:
            seen.append(address)
            if len(seen) == 2:  # the handler's lookup: another program made Plugins/Foo.md since
                (root / "Plugins").mkdir(exist_ok=True)
                files = vg.app.vaults["main"].files
                await files.write(ctx.resolve_note("Plugins/Foo.md", "write"), THEIRS, create_only=True)
                await vg.settled()
            return await real(ctx, address)

        monkeypatch.setattr(write_mod, "existing_or_new", hooked)
        error = await vg.err("write_note", "conflict", **args, elicit_token=token)
        assert error["details"]["reason"] == "not_the_note_shown" and len(seen) == 2
    assert (root / "Plugins" / "Foo.md").read_text(encoding="utf-8") == THEIRS and not (root / "Foo.md").exists()


async def test_a_confirmed_permanent_delete_of_a_name_that_found_another_note_is_a_conflict(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Plugins/Foo.md": "# Foo in Plugins\n"})
    async with started(root) as vg:
        args = {"path": "Foo", "permanent": True}
        token = await vg.token_for("delete_note", **args)  # the preview: Plugins/Foo.md
        real = ToolContext.find_note
        seen: list[str] = []

        async def hooked(self: Any, address: str, *more: Any, **options: Any) -> Any:
            seen.append(address)
            if len(seen) == 3:  # the handler's lookup: a root Foo.md, which the name now finds first
                files = vg.app.vaults["main"].files
                await files.write(self.resolve_note("Foo.md", "write"), THEIRS, create_only=True)
                await vg.settled()
            return await real(self, address, *more, **options)

        monkeypatch.setattr(ToolContext, "find_note", hooked)
        error = await vg.err("delete_note", "conflict", **args, elicit_token=token)
        assert error["details"]["reason"] == "not_the_note_shown"
    assert (root / "Foo.md").read_text(encoding="utf-8") == THEIRS and (root / "Plugins" / "Foo.md").exists()
