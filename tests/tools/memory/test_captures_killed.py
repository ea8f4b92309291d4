"""A server killed (SIGKILL) between a capture's committed row and its inbox item loses nothing.

The captures run in a real subprocess (tests/capture_killed.py) that kills itself inside the
second capture's inbox write: no rollback, no clean shutdown. A new server on the same data
folder still has both captures, and the next capture lists the one the inbox was missing.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.killed import run_until_killed


async def test_a_capture_committed_before_a_kill_is_kept_and_listed_later(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    assert await run_until_killed("tests.capture_killed", str(root)) == -signal.SIGKILL
    inbox = (root / "Memory/Inbox.md").read_text(encoding="utf-8")
    assert "listed before the kill" in inbox and "never listed" not in inbox
    async with started(root) as vg:
        pending = await vg.ok("list_captures")
        later = await vg.ok("capture", text="after the restart")
        inbox = vg.read("Memory/Inbox.md")
    assert [i["text"] for i in pending["items"]] == ["listed before the kill", "committed, never listed"]
    ids = re.findall(r"\^(cap-[0-9a-f]{10})\s*$", inbox, flags=re.M)
    assert ids == [pending["items"][0]["id"], pending["items"][1]["id"], later["id"]]
