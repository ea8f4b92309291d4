"""E2E (SDK client over real HTTP, a human approving the undo through its client): a note over
`[limits] max_note_bytes` is renamed without being read whole (its move journaled with its stat
stamp, not its bytes), undone by undo_last_plan, and an edit made to it after a second rename is a
conflict the undo names and leaves alone, one that keeps the size and sets the mtime back too. The
dispatch-chain cases (tests/tools/sessions/test_long_note_stamp_ctime.py too):
tests/tools/sessions/test_undo_long_note_moves.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_bridge_confirm_e2e import answering
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text\n" for i in range(400))  # ~9 KB, no link


async def test_a_long_note_is_renamed_unread_and_undone_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Long.md": LONG, "Short.md": "# Short\n"})
    asked: list[str] = []
    async with (
        e2e(root, limits={"max_note_bytes": LIMIT}, index={"watch": False}) as (url, _),
        Client(url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
    ):
        reads = spy(monkeypatch)
        await ok(client, "rename_note", path="Long", new_path="Longer")
        assert (root / "Longer.md").read_text(encoding="utf-8") == LONG and not (root / "Long.md").exists()
        assert not [r for r in reads if r in ("Long.md", "Longer.md")], reads  # not for its undo journal either
        out = await ok(client, "undo_last_plan")
        assert out["conflicts"] == [] and out["restored"] == ["Long.md"] and asked, out
        assert (root / "Long.md").read_text(encoding="utf-8") == LONG and not (root / "Longer.md").exists()
        assert not [r for r in reads if r in ("Long.md", "Longer.md")], reads

        await ok(client, "rename_note", path="Long", new_path="Longer")
        (root / "Longer.md").write_text(LONG + "edited after the move\n", encoding="utf-8")
        err = await error(client, "undo_last_plan")
        assert err["code"] == "conflict", err
        [conflict] = err["details"]["conflicts"]
        assert conflict["path"] == "Longer.md" and conflict["expected_etag"].startswith("stat:"), conflict
        assert (root / "Longer.md").read_text(encoding="utf-8").endswith("edited after the move\n")
        assert not (root / "Long.md").exists()


async def test_an_edit_that_sets_the_mtime_back_is_a_conflict_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    # the same size, inode and mtime (`touch -r`): the ctime in the stamp tells the edit
    root = make_vault({"Long.md": LONG, "Short.md": "# Short\n"})
    async with (
        e2e(root, limits={"max_note_bytes": LIMIT}, index={"watch": False}) as (url, _),
        Client(url, mode=mode, elicitation_callback=answering("accept", [])) as client,  # type: ignore[arg-type]
    ):
        await ok(client, "rename_note", path="Long", new_path="Longer")
        _edit_keeping_size_and_mtime(root / "Longer.md")
        err = await error(client, "undo_last_plan")
        assert err["code"] == "conflict", err
        assert [c["path"] for c in err["details"]["conflicts"]] == ["Longer.md"], err
        assert (root / "Longer.md").read_bytes().startswith(b"% Long") and not (root / "Long.md").exists()


def _edit_keeping_size_and_mtime(path: Path) -> None:
    before = os.stat(path)
    with open(path, "r+b") as fh:
        fh.write(b"%")  # '#' -> '%': the same length, the same inode
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
