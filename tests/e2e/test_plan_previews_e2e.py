"""Plans that use their own results and confirmations that show every file, end to end (issue 41,
items 1 and 3): a real uvicorn server and the SDK's Streamable HTTP client, both protocol eras.

A plan creates a note and then moves it (validate_plan and execute_plan agree; undo puts every
byte back); a move of a note 25 others link to asks a human with all 27 files listed, and after
the approval exactly those files changed on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import Harness, e2e, snapshot
from tests.e2e.calls import error, ok

LINKERS = 25
CREATE_THEN_MOVE = {
    "goal": "create a note, then file it",
    "steps": [
        {"id": "create", "tool": "create_note", "args": {"path": "Plan/A.md", "content": "# A\n"}},
        {
            "id": "move",
            "tool": "move_note",
            "args": {"path": "Plan/A.md", "new_path": "Plan/Archive/A.md"},
            "dependsOn": ["create"],
        },
    ],
}


def _vault() -> dict[str, str]:
    files = {f"Notes/n{i:02}.md": f"# N{i}\n\nSee [[Hub/Target]].\n" for i in range(LINKERS)}
    files["Hub/Target.md"] = "# Target\n"
    return files


async def _token(h: Harness, ask: dict[str, Any]) -> str:
    """A token minted as `vaultgate confirm` mints it, for the call that asked."""
    store = h.app.services.confirmations
    [request] = await store.pending(ask["details"]["args_hash"], ask["details"]["vault"])
    assert request.preview == ask["details"]["preview"]  # what the human is shown: the whole list
    token, _ = await store.mint(request, minted_by="test")
    return str(token)


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    keys = set(before) | set(after)
    return {
        k for k in keys if not k.endswith("/") and not k.startswith(".vaultgate/") and before.get(k) != after.get(k)
    }


async def test_a_plan_moves_the_note_it_created_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(_vault())) as (url, h):
        await h.indexed()
        before = snapshot(h.root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=CREATE_THEN_MOVE)
            assert checked["valid"], checked["problems"]
            ask = await error(c, "execute_plan", plan=CREATE_THEN_MOVE, effects_hash=checked["effects_hash"])
            assert ask["code"] == "elicit_required", ask  # not note_not_found: the plan creates it first
            run = await ok(
                c,
                "execute_plan",
                plan=CREATE_THEN_MOVE,
                effects_hash=checked["effects_hash"],
                elicit_token=await _token(h, ask),
            )
            assert run["status"] == "done" and [s["status"] for s in run["steps"]] == ["ok", "ok"], run
            assert (h.root / "Plan/Archive/A.md").is_file() and not (h.root / "Plan/A.md").exists()
            ask = await error(c, "undo_last_plan")
            undone = await ok(c, "undo_last_plan", elicit_token=await _token(h, ask))
            assert undone["run_id"] == run["run_id"] and not undone["conflicts"]
        assert snapshot(h.root) == before


async def test_a_confirmation_lists_every_file_the_move_changes_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(_vault())) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            for tool, args in (
                ("move_note", {"path": "Hub/Target.md", "new_path": "Archive/Target.md"}),
                (
                    "execute_plan",
                    {
                        "plan": {
                            "goal": "file it",
                            "steps": [
                                {
                                    "id": "m",
                                    "tool": "move_note",
                                    "args": {"path": "Archive/Target.md", "new_path": "Hub/Target.md"},
                                }
                            ],
                        }
                    },
                ),
            ):
                ask = await error(c, tool, **args)
                assert ask["code"] == "elicit_required", ask
                files = ask["details"]["files"]
                assert ask["details"]["files_changed"] == len(files) == LINKERS + 2, files
                assert "more" not in ask["details"]["preview"].split("files changed")[-1]
                before = snapshot(h.root)
                await ok(c, tool, **args, elicit_token=await _token(h, ask))
                assert set(files) == _changed(before, snapshot(h.root))


async def test_a_token_approves_the_preview_not_only_the_arguments_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    def append(path: str, text: str) -> dict[str, Any]:
        return {"goal": "add", "steps": [{"id": "a", "tool": "append_note", "args": {"path": path, "content": text}}]}

    async with e2e(make_vault({"Inbox/Beta.md": "# Beta\n", "Areas/Reading.md": "# Reading\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            x = await ok(c, "execute_plan", plan=append("Inbox/Beta", "from X\n"))
            ask = await error(c, "undo_last_plan")
            assert ask["details"]["files"] == ["Inbox/Beta.md"]
            token = await _token(h, ask)  # approves undoing X
            y = await ok(c, "execute_plan", plan=append("Areas/Reading", "from Y\n"))
            before = snapshot(h.root)
            again = await error(c, "undo_last_plan", elicit_token=token)
            assert again["code"] == "elicit_required" and again["details"]["files"] == ["Areas/Reading.md"]
            assert "no longer what the token approved" in again["details"]["reason"]
            assert snapshot(h.root) == before
            undone = await ok(c, "undo_last_plan", elicit_token=await _token(h, again))
            assert undone["run_id"] == y["run_id"] != x["run_id"]
            assert (
                "from X" in (h.root / "Inbox/Beta.md").read_text()
                and "from Y" not in (h.root / "Areas/Reading.md").read_text()
            )
