"""execute_template with no folder (`folder: ""`, the vault's root, its default) makes the note in
the root, whatever Obsidian's "Default location for new notes" says, through the whole dispatch
chain against the Local REST API stand-in with the companion's routes
(tests/tools/bridges/standin.py, which models Templater's create_new_note_from_template).

Templater takes a falsy folder (`if (!folder)` in src/core/Templater.ts: absent, null or "") as
"none given" and puts the note where Obsidian's setting says: the active note's folder ("Same
folder as current file") or a set folder. The tool sent `""` for the root, so the note landed
elsewhere than the path it had checked against the path ACL: in the active note's folder, a
folder the caller may not write included (`Private/`, denied here), and then answered an empty
`path` (a note it may not read)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


def _active(path: str) -> dict[str, object]:
    return {"path": path, "content": "x\n", "frontmatter": {}, "tags": [], "stat": None}


@pytest.mark.parametrize("active", ["Projects/Plan.md", "Private/Secret.md"])
async def test_a_template_without_a_folder_lands_in_the_root_beside_an_active_note_elsewhere(
    make_vault: Callable[..., Path], tmp_path: Path, active: str
) -> None:
    obsidian = Obsidian(active=_active(active), new_file_location="current")
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        token = await vg.token_for("execute_template", template="Meeting", filename="Kickoff")
        out = await vg.ok("execute_template", template="Meeting", filename="Kickoff", elicit_token=token)
        assert out["path"] == "Kickoff.md", out
        assert out["obsidian_url"].endswith("file=Kickoff.md")
    assert [obsidian.templater_path(made) for made in obsidian.created] == ["Kickoff.md"]


async def test_a_template_without_a_folder_or_name_lands_in_the_root_beside_a_set_new_note_folder(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Obsidian(new_file_location="folder", new_file_folder="Private")
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        token = await vg.token_for("execute_template", template="Meeting")
        out = await vg.ok("execute_template", template="Meeting", elicit_token=token)
        assert out["path"] == "Untitled.md", out
    assert [obsidian.templater_path(made) for made in obsidian.created] == ["Untitled.md"]


async def test_a_template_with_a_folder_still_lands_in_that_folder(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Obsidian(active=_active("Private/Secret.md"), new_file_location="current")
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        args = {"template": "Meeting", "folder": "/Projects/", "filename": "Kickoff"}
        out = await vg.ok("execute_template", **args, elicit_token=await vg.token_for("execute_template", **args))
        assert out["path"] == "Projects/Kickoff.md", out
    assert [made["folder"] for made in obsidian.created] == ["Projects"]


async def test_a_filename_given_with_its_md_makes_no_md_md_note(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Templater adds the extension to the name it is given (Obsidian's getAvailablePath(name, "md")):
    a filename sent as 'Kickoff.md' made 'Projects/Kickoff.md.md'."""
    obsidian = Obsidian()
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        args = {"template": "Meeting", "folder": "Projects", "filename": "Kickoff.md"}
        out = await vg.ok("execute_template", **args, elicit_token=await vg.token_for("execute_template", **args))
        assert out["path"] == "Projects/Kickoff.md", out
    assert [obsidian.templater_path(made) for made in obsidian.created] == ["Projects/Kickoff.md"]
