"""A rename that rewrites links in a note another caller has just moved (K2 s95).

Moves, renames, `rewrite_links`, `rename_tag` and `replace_text` run one at a time per vault
(`move_lock`) and plan from the index: the notes linking to the renamed one are its backlinks
there. A move acknowledged just before is on disk, but its index update may still be queued
(group commit), and another caller's call does not wait for it (read-your-writes is per caller).
So a rename planned its rewrite of `A.md` from the index while `A.md` was already `A2.md` on
disk: the rewrite found no file, the rename answered success, and `A2.md` kept a link to the old
name, broken (seen twice in ~100 concurrent renames of the crash pass on obsidian-help-en).

The server is `python -m tests.slow_index_serve` (the CLI's `run_http`, its index rounds applied
1.5 s late, so the moment is hit every time); two SDK clients, each with its own session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client

from tests.e2e.served import endpoint_of
from tests.killed import REPO

VAULT = {
    "Notes/A.md": "# A\n\nSee [[B]] and [[B#Part|the part]].\n",
    "Notes/B.md": "# B\n\n## Part\n\ntext\n",
    "Notes/C.md": "# C\n\n[[A]] links A.\n",
}


async def test_a_rename_rewrites_the_links_of_a_note_another_caller_just_moved(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(VAULT)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tests.slow_index_serve", str(root)]
    with subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=None, text=True) as proc:  # noqa: ASYNC220
        try:
            url = await anyio.to_thread.run_sync(endpoint_of, proc, 120)
            assert url, "the server printed no endpoint"
            async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
                moved = await first.call_tool("rename_note", {"path": "Notes/A.md", "new_path": "A2"})
                assert not moved.is_error, json.dumps(moved.structured_content)
                renamed = await second.call_tool("rename_note", {"path": "Notes/B.md", "new_path": "B2"})
                assert not renamed.is_error, json.dumps(renamed.structured_content)
                text = (root / "Notes/A2.md").read_text(encoding="utf-8")
                assert text == "# A\n\nSee [[B2]] and [[B2#Part|the part]].\n", text
                assert (root / "Notes/C.md").read_text(encoding="utf-8") == "# C\n\n[[A2]] links A.\n"
                broken = await second.call_tool("find_broken_links", {})
                assert (broken.structured_content or {})["items"] == [], json.dumps(broken.structured_content)
        finally:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
