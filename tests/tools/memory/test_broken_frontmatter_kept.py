"""A memory note whose frontmatter does not parse (a YAML typo, an alias bomb) is refused by every
memory write with validation_error (reason invalid_frontmatter), as set_properties refuses it, and
left byte for byte: the store rendered the entity from what parsed, so each write dropped every
property (T1 s62 #7: `custom`, `notes`, even `entityType` were lost)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

TYPO = (
    "---\nname: Ann\nentityType: person\ncustom: keep me\nnotes: [unclosed\n---\n# Ann\n\n"
    "## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
)
LEVELS = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
BOMB = (
    "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + LEVELS + "custom: keep me\n---\n# Ann\n\n"
    "## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
)


@pytest.mark.parametrize("text", [TYPO, BOMB], ids=["typo", "alias-bomb"])
async def test_memory_writes_refuse_a_note_whose_frontmatter_does_not_parse(
    make_vault: Callable[..., Path], text: str
) -> None:
    async with started(make_vault({"Memory/Ann.md": text, "Memory/Bob.md": "# Bob\n"})) as vg:
        calls = {
            "add_observations": {"observations": [{"entityName": "Ann", "contents": ["likes coffee"]}]},
            "create_relations": {"relations": [{"from": "Ann", "to": "Bob", "relationType": "knows"}]},
            "delete_observations": {"deletions": [{"entityName": "Ann", "observations": ["likes tea"]}]},
        }
        for tool, args in calls.items():
            error = await vg.err(tool, "validation_error", **args)
            assert error["details"]["reason"] == "invalid_frontmatter", (tool, error)
            assert vg.read("Memory/Ann.md") == text, tool
        await vg.ok("add_observations", observations=[{"entityName": "Bob", "contents": ["likes coffee"]}])
