"""bulk_create_notes takes back the notes it made when a later one fails (all or nothing). A note
it made over `[limits] max_note_bytes` is removed without being read whole: its bytes were
recorded in the call's undo journal before it was unlinked (a 600 MB note read whole, S88 J3);
now its create's record is withdrawn once it is gone (`service.vault.journal.withdraw`), so a
kill in between leaves the create's record and a note already gone (the rollback: untouched)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.errors import Conflict
from service.vault.files import VaultFiles
from tests.conftest import started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}


def _second_write_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    write = VaultFiles.write

    async def failing(self: VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
        if vp.rel == "Inbox/Second.md":
            raise Conflict("another program saved it meanwhile", details={"path": vp.rel})
        return await write(self, vp, *args, **kwargs)

    monkeypatch.setattr(VaultFiles, "write", failing)


@pytest.mark.parametrize("content", [LONG, "# short\n"], ids=["long", "short"])
async def test_a_note_the_call_made_is_taken_back_unread_when_a_later_one_fails(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    async with started(make_vault({"Home.md": "# Home\n"}), limits=LIMITS, index={"watch": False}) as vg:
        reads = spy(monkeypatch)
        _second_write_fails(monkeypatch)
        notes = [{"path": "Inbox/First", "content": content}, {"path": "Inbox/Second", "content": "# 2\n"}]
        await vg.err("bulk_create_notes", "conflict", notes=notes)
        assert not (vg.root / "Inbox").exists()  # the note and the folder the call made: gone
        rows = await vg.app.state.fetchall("SELECT kind, path, prior IS NULL FROM plan_journal")
        if content == LONG:
            assert "Inbox/First.md" not in reads, reads
            assert [r for r in rows if r[1] == "Inbox/First.md"] == [], rows  # neither the create nor its bytes
        else:  # a short note keeps its records, bytes and all
            assert ("file", "Inbox/First.md", 0) in [tuple(r) for r in rows], rows
