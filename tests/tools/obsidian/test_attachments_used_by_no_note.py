"""list_attachments embedded_by names a note: an empty name is refused like a blank one, not read
as no filter (which listed every attachment of the vault, what the filter is there to avoid)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_an_empty_note_name_is_refused(make_vault: Callable[..., Path]) -> None:
    files: dict[str, str | bytes] = {"N.md": "![[a.png]]\n", "a.png": b"\x89PNG", "b.png": b"\x89PNG"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        for name in ("", "  "):
            await vg.err("list_attachments", "path_invalid", embedded_by=name)
        used = await vg.ok("list_attachments", embedded_by="n")
        assert [i["path"] for i in used["items"]] == ["a.png"]
        every = await vg.ok("list_attachments")
        assert [i["path"] for i in every["items"]] == ["a.png", "b.png"]
