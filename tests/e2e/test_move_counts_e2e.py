"""A move's dry run counts the files its confirmation lists and its run changes, end to end: a real
uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok

MOVE_VAULT: dict[str, str | bytes] = {
    "Target.md": "# Target\n\n## Part\n\nSelf [[Target#Part]].\n",
    "A.md": "See [[Target]], ![[Target#Part]] and [t](Target.md).\n",
    "B.md": "Nothing.\n",
}


async def test_a_moves_dry_run_counts_the_files_its_confirmation_lists(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(MOVE_VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        args = {"path": "Target", "new_path": "Archive/Renamed"}
        dry = await _ok(c, "move_note", **args, dry_run=True)
        asked = await _error(c, "move_note", **args, dry_run=False)
        assert asked["code"] == "elicit_required"
        # The dry run said 2 (the notes it rewrites), the confirmation 3 files.
        assert dry["files_changed"] == asked["details"]["files_changed"] == 3
        assert sorted(asked["details"]["files"]) == ["A.md", "Archive/Renamed.md", "Target.md"]
        assert dry["notes_rewritten"] == 2 and sorted(i["path"] for i in dry["items"]) == ["A.md", "Target.md"]
        token = await h.token_for("move_note", **args, dry_run=False)
        run = await _ok(c, "move_note", **args, dry_run=False, elicit_token=token)
        assert run["files_changed"] == 3 and (h.root / "Archive/Renamed.md").exists()
