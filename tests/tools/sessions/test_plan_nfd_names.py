"""validate_plan names a note a step creates by the path the call then creates: NFC.

A macOS client spells 'Café' in NFD (`Cafe` + a combining accent); create_note makes 'Café.md'
in NFC, as every vault path is, but validate_plan's effects (files_created) and the confirmation
listed 'Café.md' as spelled in the call, a file no run makes (notes the plan addresses that exist
were already found by their NFC paths). Found comparing a plan's effects with the disk after the
run for NFD names (reviewing 7b18071a's plan texts)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


async def test_a_note_made_by_an_nfd_name_is_previewed_by_its_nfc_path(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Thé.md": "t\n"})) as vg:
        await vg.indexed()
        plan = {
            "goal": "a note by a macOS name",
            "steps": [
                {"id": "mk", "tool": "create_note", "args": {"path": nfd("Notes/Café"), "content": "x\n"}},
                {"id": "ap", "tool": "append_note", "args": {"path": nfd("Thé"), "content": "[[Café]]\n"}},
            ],
        }
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert effects["files_created"] == ["Notes/Café.md"] and effects["files_modified"] == ["Thé.md"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done"
        made = sorted(str(p.relative_to(vg.root)) for p in (vg.root / "Notes").iterdir())
        assert made == effects["files_created"]
