"""An invalid tag names the argument that holds it: rename_tag's `old` or `new`, add_tags' and
remove_tags' `tags`. Before, rename_tag with new='bad tag with space' answered details.field 'tags',
an argument rename_tag does not have."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_rename_tag_names_old_or_new(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n\n#proj here\n"})
    async with started(root) as vg:
        await vg.indexed()
        bad_new = await vg.err("rename_tag", "validation_error", old="proj", new="bad tag with space")
        assert bad_new["details"]["field"] == "new", bad_new
        assert bad_new["details"]["tag"] == "bad tag with space"
        bad_old = await vg.err("rename_tag", "validation_error", old="12", new="work", dry_run=False)
        assert bad_old["details"]["field"] == "old", bad_old
        for tool in ("add_tags", "remove_tags"):
            error = await vg.err(tool, "validation_error", path="A.md", tags=["ok", "no good"])
            assert error["details"]["field"] == "tags", error
        assert (root / "A.md").read_text() == "# A\n\n#proj here\n"
