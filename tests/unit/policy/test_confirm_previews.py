"""A confirmation approves what the human was shown, not only the call's arguments.

`undo_last_plan {}` undoes whichever run is last when it runs and `rename_tag` rewrites every
note holding the tag by then: the same arguments can change other files than the ones a human
approved. A token (and a 2026-07-28 input request's sealed state) is bound to the preview; a call
whose preview changed since is asked again and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.conftest import Harness, started

VAULT = {
    "Inbox/Beta.md": "# Beta\n",
    "Areas/Reading list.md": "# Reading\n",
    "A.md": "#howto one\n",
    "B.md": "x #howto\n",
}


def _append(path: str, text: str) -> dict[str, Any]:
    return {
        "goal": f"add to {path}",
        "steps": [{"id": "a", "tool": "append_note", "args": {"path": path, "content": text}}],
    }


async def _asked(vg: Harness, tool: str, **args: Any) -> dict[str, Any]:
    error = await vg.err(tool, "elicit_required", **args)
    details: dict[str, Any] = error["details"]
    return details


async def _token(vg: Harness, details: dict[str, Any]) -> str:
    store = vg.app.services.confirmations
    [request] = await store.pending(details["args_hash"], details["vault"])
    assert request.preview == details["preview"]
    token, _ = await store.mint(request, minted_by="test")
    return str(token)


async def test_a_token_for_undo_does_not_undo_a_run_made_after_it_was_minted(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        x = await vg.ok("execute_plan", plan=_append("Inbox/Beta", "from X\n"))
        asked = await _asked(vg, "undo_last_plan")
        assert x["run_id"] in asked["preview"] and asked["files"] == ["Inbox/Beta.md"]
        token = await _token(vg, asked)  # the human approved undoing X
        y = await vg.ok("execute_plan", plan=_append("Areas/Reading list", "from Y\n"))
        before = vg.snapshot()
        again = await _asked(vg, "undo_last_plan", elicit_token=token)
        assert "no longer what the token approved" in again["reason"]
        assert y["run_id"] in again["preview"] and again["files"] == ["Areas/Reading list.md"]
        assert vg.snapshot() == before  # nothing undone
        undone = await vg.ok("undo_last_plan", elicit_token=await _token(vg, again))
        assert undone["run_id"] == y["run_id"] and undone["restored"] == ["Areas/Reading list.md"]
        assert "from X" in (vg.root / "Inbox/Beta.md").read_text()


async def test_a_rename_tag_token_does_not_cover_a_note_tagged_after_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        args = {"old": "howto", "new": "guide", "dry_run": False}
        asked = await _asked(vg, "rename_tag", **args)
        assert asked["files"] == ["A.md", "B.md"]
        token = await _token(vg, asked)
        await vg.ok("create_note", path="Inbox/Late howto", content="late #howto\n")
        before = vg.snapshot()
        again = await _asked(vg, "rename_tag", **args, elicit_token=token)
        assert "no longer what the token approved" in again["reason"]
        assert again["files"] == ["A.md", "B.md", "Inbox/Late howto.md"]
        assert vg.snapshot() == before
        # back to what was approved (the late note gone): the unspent token is good again
        await vg.ok("delete_note", path="Inbox/Late howto", permanent=True, elicit_token=await _token(
            vg, await _asked(vg, "delete_note", path="Inbox/Late howto", permanent=True)
        ))  # fmt: skip
        done = await vg.ok("rename_tag", **args, elicit_token=token)
        assert done["files_changed"] == 2 and sorted(i["path"] for i in done["items"]) == ["A.md", "B.md"]
        assert "#guide" in (vg.root / "A.md").read_text() and "#guide" in (vg.root / "B.md").read_text()


async def test_an_input_request_answered_after_the_preview_changed_is_asked_again(
    make_vault: Callable[..., Path],
) -> None:
    async def report_progress(*_: Any) -> None:
        return None

    session = SimpleNamespace(
        protocol_version=MODERN_PROTOCOL_VERSIONS[0],
        client_capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()),
        report_progress=report_progress,
    )
    request = SimpleNamespace(session=session, request_id=1)
    yes = {"vaultgate_confirm": types.ElicitResult(action="accept", content={"confirm": True})}
    async with started(make_vault(VAULT)) as vg:
        call = vg.app.dispatcher.call
        args = {"old": "howto", "new": "guide", "dry_run": False}
        first = await call("rename_tag", args, principal=vg.principal, request=request)
        assert first.input_required is not None
        state = first.input_required.request_state
        await vg.ok("create_note", path="Inbox/Late howto", content="late #howto\n")
        before = vg.snapshot()
        late = await call(
            "rename_tag", args, principal=vg.principal, request=request, input_responses=yes, request_state=state
        )
        assert late.input_required is not None and vg.snapshot() == before  # asked again, nothing changed
        fresh = late.input_required.request_state
        done = await call(
            "rename_tag", args, principal=vg.principal, request=request, input_responses=yes, request_state=fresh
        )
        assert not done.is_error and "#guide" in (vg.root / "Inbox/Late howto.md").read_text()


async def test_a_permanent_delete_token_does_not_delete_a_note_edited_after_it(make_vault: Callable[..., Path]) -> None:
    """The human approves deleting one version of the note: an edit made since (longer, or of the
    same length) asks again and deletes nothing; approving the new version deletes it (T1 s62 #8)."""
    async with started(make_vault(VAULT)) as vg:
        args = {"path": "A", "permanent": True}
        asked = await _asked(vg, "delete_note", **args)
        assert "bytes, etag " in asked["preview"]
        token = await _token(vg, asked)
        note = vg.root / "A.md"
        for edit in ("#howto one\n\nNEW WRITING\n", "#howto One\n"):  # longer; same size
            note.write_text(edit)
            again = await _asked(vg, "delete_note", **args, elicit_token=token)
            assert "no longer what the token approved" in again["reason"]
            assert note.read_text() == edit  # nothing deleted, token unspent
        done = await vg.ok("delete_note", **args, elicit_token=await _token(vg, again))
        assert done["deleted"] and done["permanent"] and not note.exists()


async def test_a_permanent_delete_edited_after_its_confirmation_check_is_a_conflict(
    make_vault: Callable[..., Path], monkeypatch: Any
) -> None:
    """An edit landing between the confirmation's re-check and the delete itself: the delete is of
    the version shown, so it fails with conflict and the edit stays."""
    async with started(make_vault(VAULT)) as vg:
        args = {"path": "A", "permanent": True}
        token = await _token(vg, await _asked(vg, "delete_note", **args))
        files = vg.app.vaults["main"].files
        real_delete = files.delete
        note = vg.root / "A.md"

        async def edited_first(vp: Any, **kw: Any) -> Any:
            note.write_text("#howto one\n\nwritten at the last moment\n")
            return await real_delete(vp, **kw)

        monkeypatch.setattr(files, "delete", edited_first)
        await vg.err("delete_note", "conflict", **args, elicit_token=token)
        assert note.read_text() == "#howto one\n\nwritten at the last moment\n"


async def test_a_plans_permanent_delete_token_does_not_delete_a_note_edited_after_it(
    make_vault: Callable[..., Path],
) -> None:
    """A plan's confirmation names the notes it deletes with their etags: a token minted before
    one was edited asks again and deletes nothing (F6 s62 left: the plan preview named the path only)."""
    async with started(make_vault(VAULT)) as vg:
        step = {"id": "d", "tool": "delete_note", "args": {"path": "A", "permanent": True}}
        args = {"plan": {"goal": "clean up", "steps": [step]}}
        asked = await _asked(vg, "execute_plan", **args)
        assert "as they are now: A.md " in asked["preview"]
        token = await _token(vg, asked)
        note = vg.root / "A.md"
        note.write_text("#howto One\n")  # same size, other bytes
        again = await _asked(vg, "execute_plan", **args, elicit_token=token)
        assert "no longer what the token approved" in again["reason"] and note.read_text() == "#howto One\n"
        run = await vg.ok("execute_plan", **args, elicit_token=await _token(vg, again))
        assert run["status"] == "done" and not note.exists()


async def test_an_overwrite_token_does_not_overwrite_an_edit_of_the_same_size(make_vault: Callable[..., Path]) -> None:
    """The overwrite's preview names the note's etag: a token minted before a person edited it
    (to the same size) asks again and overwrites nothing (R4 s62 F0: the edit was lost for good)."""
    async with started(make_vault(VAULT)) as vg:
        note = vg.root / "A.md"
        for tool, args in (
            ("write_note", {"path": "A", "content": "replaced\n", "mode": "overwrite"}),
            ("create_note", {"path": "A", "content": "replaced\n", "if_exists": "overwrite"}),
        ):
            asked = await _asked(vg, tool, **args)
            assert "etag " in asked["preview"]
            token = await _token(vg, asked)
            edit = "".join(chr(ord(c) ^ 1) if c.isalpha() else c for c in note.read_text())  # same size
            note.write_text(edit)
            again = await _asked(vg, tool, **args, elicit_token=token)
            assert "no longer what the token approved" in again["reason"] and note.read_text() == edit, tool
