"""The memory's name lookup (`service.memory.lookup`) in a memory folder reached through a link
inside the vault: an entity renamed by hand is found, in the tools and in a plan's previewed
effects, as in a plain folder. The lookup gets the vault root and the folder's path and walks the
link's in-vault target with no link on the way (after 8ff5e927 it walked the folder's path from
`/` and refused the link, so such an entity was not found). A link that leads outside the vault,
even one swapped in after the call checked the path, is still never followed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.vault.files import VaultFiles
from tests.conftest import started

RENAMED = "---\nname: Ann\n---\n# Ann\n\n## Observations\n- tea\n"


async def test_an_entity_renamed_by_hand_is_found_through_an_in_vault_link(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Shared/Mem/Renamed.md": RENAMED, "Home.md": "# Home\n"})
    os.symlink(root / "Shared" / "Mem", root / "Memory")
    async with started(root, index={"watch": False}) as vg:
        [entity] = (await vg.ok("open_nodes", names=["Ann"]))["entities"]
        assert entity["name"] == "Ann"
        assert entity["path"] == "Memory/Renamed.md"
        step = {"entityName": "Ann", "contents": ["coffee"]}
        plan = {
            "goal": "remember",
            "steps": [{"id": "a", "tool": "add_observations", "args": {"observations": [step]}}],
        }
        dry = await vg.ok("execute_plan", plan=plan, dry_run=True)
        assert dry["effects"]["files_modified"] == ["Memory/Renamed.md"], dry["effects"]
        await vg.ok("add_observations", observations=[step])
    assert "- coffee" in (root / "Shared" / "Mem" / "Renamed.md").read_text(encoding="utf-8")
    assert not (root / "Shared" / "Mem" / "Ann.md").exists()


async def test_a_link_swapped_to_lead_outside_after_the_check_is_not_followed(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Shared/Mem/Other.md": "# Other\n", "Home.md": "# Home\n"})
    os.symlink(root / "Shared" / "Mem", root / "Memory")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Renamed.md").write_text(RENAMED, encoding="utf-8")
    has_note = VaultFiles.has_note

    def swapped_after_the_check(self: VaultFiles, vp: object) -> bool:
        found = has_note(self, vp)  # type: ignore[arg-type]
        if os.readlink(root / "Memory") != str(outside):  # the link now leads out, just before the lookup
            os.unlink(root / "Memory")
            os.symlink(outside, root / "Memory")
        return found

    async with started(root, index={"watch": False}) as vg:
        with monkeypatch.context() as patched:
            patched.setattr(VaultFiles, "has_note", swapped_after_the_check)
            answer = await vg.call("open_nodes", names=["Ann"])
        assert os.readlink(root / "Memory") == str(outside)  # the lookup ran after the swap
        assert "Renamed" not in str(answer.structured), answer.structured
        known = vg.app.services.memory_writes.names._known
        assert not any(entity == "Ann" for _mtime, _size, entity, *_ in known.values()), known
