"""A note made read-only is not changed, as an SDK client sees it (tests/tools/notes/
test_read_only_notes.py through the dispatch chain): over HTTP on a real uvicorn server (both
eras; the suite runs as root, where a file no one may write, mode 0444, is what is refused) and
over stdio with the server running as an ordinary uid (`setpriv`), where the kernel answers: a
note its owner made read-only, and a note of another uid only that uid may write, in a folder
the server may write (an edit by rename would have replaced both)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_run_as_user_e2e import OTHER, OWNER, as_uid, env_for, owned, place, source  # noqa: F401

NOTE = "---\nstatus: final\n---\n# Signed\n\nSee [[Open]]. #keep\n"
REWRITES = [  # changes of several notes that would edit it: refused, a human never asked
    ("rewrite_links", {"old_target": "Open", "new_target": "Other", "dry_run": False}),
    ("rename_tag", {"old": "keep", "new": "kept", "dry_run": False}),
]
EDITS = [
    ("append_note", {"path": "Signed", "content": "more"}),
    ("set_properties", {"path": "Signed", "properties": {"status": "draft"}}),
    ("move_note", {"path": "Signed", "new_path": "Archive/"}),
    ("delete_note", {"path": "Signed"}),
    ("write_note", {"path": "Signed", "content": "replaced\n", "mode": "overwrite"}),  # refused, not asked
    ("delete_note", {"path": "Signed", "permanent": True}),
]


async def test_a_read_only_note_is_refused_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Signed.md": NOTE, "Open.md": "# Open\n", "Other.md": "# Other\n"})
    (root / "Signed.md").chmod(0o444)
    async with e2e(root) as (url, h):
        await h.indexed()
        before = snapshot(root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            for tool, args in EDITS + REWRITES:
                refused = await error(c, tool, **args)
                assert refused["code"] == "vault_unwritable" and refused["details"].get("reason") == "read_only_file", (
                    refused
                )
            plan = {
                "goal": "tag",
                "steps": [{"id": "t", "tool": "add_tags", "args": {"path": "Signed", "tags": ["x"]}}],
            }
            checked = await ok(c, "validate_plan", plan=plan)  # foreseen: the plan is refused up front
            assert [f["code"] for f in checked["effects"]["failures"]] == ["vault_unwritable"] and not checked["valid"]
            assert snapshot(root) == before
            await ok(c, "append_note", path="Open", content="more")  # the writable note beside it is edited
        assert h.read("Open.md") == "# Open\nmore"


async def test_a_dry_run_vault_previews_the_refusal_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Signed.md": NOTE})
    (root / "Signed.md").chmod(0o444)
    dry = [{"id": "main", "path": root, "write_mode": "dry-run"}]
    async with e2e(root, vaults=dry) as (url, _h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        for tool, args in EDITS[:4]:
            refused = await error(c, tool, **args)
            assert refused["code"] == "vault_unwritable" and refused["details"]["path"] == "Signed.md", refused


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to run the server as other uids",
)
async def test_notes_the_servers_uid_may_not_write_are_refused_over_stdio(place: Path, source: Path) -> None:  # noqa: F811
    vault = owned(place / "vault", OWNER)
    for name, uid, mode in (("Signed.md", OWNER, 0o444), ("Theirs.md", OTHER, 0o644), ("Mine.md", OWNER, 0o644)):
        (vault / name).write_text(NOTE, encoding="utf-8")
        os.chown(vault / name, uid, uid)
        (vault / name).chmod(mode)
    params = StdioServerParameters(
        command=as_uid(OWNER)[0],
        args=[*as_uid(OWNER)[1:], sys.executable, "-m", "service", "stdio", str(vault)],
        env=env_for(place, OWNER, source),
        cwd=place,
    )
    before = snapshot(vault)
    async with Client(params) as client:
        for path in ("Signed", "Theirs"):
            for tool, args in EDITS:
                refused = await error(client, tool, {**args, "path": path})
                assert refused["code"] == "vault_unwritable", (path, tool, refused)
                assert refused["details"]["reason"] == "read_only_file", (path, tool, refused)
        assert snapshot(vault) == before
        await ok(client, "append_note", path="Mine", content="more")
    assert (vault / "Mine.md").read_text(encoding="utf-8") == NOTE + "more"
