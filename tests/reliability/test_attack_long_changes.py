"""A file with many changed lines in a vault-wide edit's preview (U11, session 77). move_note,
rename_note, rewrite_links, rename_tag and replace_text list each changed file with every line
that changes; `limit` pages the files, not their lines. One note whose thousands of lines each link
to the moved note (a log, a note of 50 MB: 2.5 million lines) made a preview larger than the
response budget at every `limit`: the dry run answered overflow, and its hint (retry with limit=1)
answered overflow again; the 50 MB note's preview was 234 MB, built in 1.3 GB of peak memory. A
file's listed changes now stop at a quarter of the budget (`changes_not_listed` counts the rest;
the totals still count every change), so a page of one file always fits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import e2e, started
from tests.e2e.calls import ok
from tests.e2e.test_plan_tasks_e2e import client
from tests.keys import SECRET, claims, hs

BUDGET = 64 * 1024  # governor.max_response_bytes: small, so a few thousand lines pass it
LINES = 3000
LINE = "A line of the log that links to [[Home]] and carries #tag and more words.\n"
FILES = {"Home.md": "# Home\n", "Other.md": "See [[Home]].\n", "Log.md": "# Log\n" + LINE * LINES}
PREVIEWS: list[tuple[str, dict[str, Any]]] = [
    ("move_note", {"path": "Home", "new_path": "Moved/Start"}),
    ("rename_note", {"path": "Home", "new_path": "Start"}),
    ("rewrite_links", {"old_target": "Home", "new_target": "Other"}),
    ("rename_tag", {"old": "tag", "new": "label"}),
    ("replace_text", {"path": "Log", "find": "words", "replace": "text"}),
]


def check_preview(tool: str, out: dict[str, Any]) -> None:
    log = next(i for i in out["items"] if i["path"] == "Log.md")
    assert 0 < len(log["changes"]) < LINES, (tool, len(log["changes"]))
    assert len(log["changes"]) + log["changes_not_listed"] == LINES, tool
    assert log["changes"][0]["line"] == 2 and log["changes"][-1]["line"] == len(log["changes"]) + 1, tool
    other = [i for i in out["items"] if i["path"] == "Other.md"]
    assert all("changes_not_listed" not in i and len(i["changes"]) == 1 for i in other), tool


async def test_a_file_with_many_changed_lines_is_previewed_within_the_budget(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, governor={"max_response_bytes": BUDGET}) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for tool, args in PREVIEWS:
            check_preview(tool, await vg.ok(tool, **args, dry_run=True))
            check_preview(tool, await vg.ok(tool, **args, dry_run=True, limit=1))
        assert vg.snapshot() == before
        # applied, every line changes, the answer lists what fits
        done = await vg.confirmed("move_note", path="Home", new_path="Moved/Start")
        assert done["links_rewritten"] == LINES + 1, done
    assert vg.read("Log.md").count("[[Start]]") == LINES


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_preview_over_http_with_jwt(make_vault: Callable[..., Path], mode: str) -> None:
    token = hs(claims(sub="agent", scope="read:vault write:vault"))
    settings = {"auth": {"mode": "jwt", "jwt_secret": SECRET}, "governor": {"max_response_bytes": BUDGET}}
    async with e2e(make_vault(FILES), **settings) as (url, h), client(url, token, mode) as c:
        await h.indexed()
        for tool, args in PREVIEWS:
            check_preview(tool, await ok(c, tool, args, dry_run=True))
