"""Entity notes keep what they are given, through the dispatch chain: a person's save that lands
while the server writes the note is never written over; observation text, dates and sources that
look like provenance read back as given and forge nothing; control characters are refused; tags
given with an observation are on its line and read back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from service.vault import files as vault_files
from tests.conftest import Harness


async def test_a_persons_save_while_the_server_writes_the_note_is_kept(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_entities", entities=[{"name": "Hub", "entityType": "topic", "observations": ["first"]}])
    path = vg.root / "Memory/Hub.md"
    real_write_in = vault_files.write_in
    saved: list[bool] = []

    def person_saves_meanwhile(folder_fd: int, name: str, *args: Any, **kwargs: Any) -> Any:
        # The server has read the note and compared its etag; an editor's atomic save lands now,
        # while the server's new bytes are being written.
        if name == "Hub.md" and not saved:
            saved.append(True)
            edited = path.read_text(encoding="utf-8").replace("## Relations", "- hand edit\n\n## Relations")
            tmp = Path(f"{path}.editor")
            tmp.write_text(edited, encoding="utf-8")
            os.replace(tmp, path)
        return real_write_in(folder_fd, name, *args, **kwargs)

    monkeypatch.setattr(vault_files, "write_in", person_saves_meanwhile)
    await vg.ok("add_observations", observations=[{"entityName": "Hub", "contents": ["agent fact"]}])
    assert saved == [True]
    text = path.read_text(encoding="utf-8")
    assert "- hand edit\n" in text and "agent fact" in text
    opened = await vg.ok("open_nodes", names=["Hub"])
    texts = [o["text"] for o in opened["entities"][0]["observations"]]
    assert sorted(texts) == ["agent fact", "first", "hand edit"]
