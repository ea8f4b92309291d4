"""Over HTTP (real uvicorn, JWT, the SDK client), for a token denied `Private/`: remove_bookmark's
confirmation counts only the bookmarks the caller sees, and a Dataview link to a hidden note
answers as a link to an absent one (s61 T2 #5, #9)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import e2e
from tests.e2e.test_plan_tasks_e2e import client
from tests.keys import SECRET, claims, hs

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
BOOKMARKS = {
    "items": [
        {
            "type": "group",
            "ctime": 1,
            "title": "G",
            "items": [
                {"type": "file", "ctime": 2, "path": "Private/Zephyrine.md"},
                {"type": "file", "ctime": 3, "path": "Projects/Alpha.md"},
            ],
        }
    ]
}
FILES = {
    "Projects/Alpha.md": "# Alpha\nAlpha links [[Zephyrine]].\n",
    "Private/Zephyrine.md": "# Zephyrine\n",
    ".obsidian/bookmarks.json": json.dumps(BOOKMARKS),
}


async def test_a_restricted_token_over_http_cannot_tell_hidden_notes_from_absent_ones(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(FILES)
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(root, auth=auth, acl=NO_PRIVATE, tool_facade={"mode": "flat"}) as (url, vg):
        await vg.indexed()
        async with client(url, hs(claims(sub="agent", scope="read:vault write:vault")), "legacy") as agent:
            asked = await agent.call_tool("remove_bookmark", {"title": "G"})
            answers = {}
            for name in ("Zephyrine", "Zephyrina"):  # hidden, absent
                field = f"[[{name}]] = [[Private/{name}]]"
                got = await agent.call_tool("eval_dataview_field", {"path": "Projects/Alpha", "field": field})
                assert got.structured_content is not None
                answers[name] = got.structured_content["fields"][field]
    assert asked.is_error and asked.structured_content is not None
    error = asked.structured_content["error"]
    assert error["code"] == "elicit_required" and "the 1 bookmarks" in json.dumps(error)  # not 2
    assert answers["Zephyrine"] == answers["Zephyrina"]
    assert json.loads((root / ".obsidian/bookmarks.json").read_text())["items"][0]["items"][0]["path"] == (
        "Private/Zephyrine.md"
    )
