"""A server killed (SIGKILL) between a capture's committed row and its inbox item loses nothing.

The captures run in a real subprocess (tests/capture_killed.py) that kills itself inside the
second capture's inbox write: no rollback, no clean shutdown. A new server on the same data
folder still has both captures, and the next capture lists the one the inbox was missing.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import anyio

from tests.conftest import started

REPO = Path(__file__).resolve().parents[3]


async def test_a_capture_committed_before_a_kill_is_kept_and_listed_later(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.capture_killed", str(root)]
    proc = await anyio.open_process(command, env=env, cwd=REPO, stdout=None, stderr=None)
    try:
        with anyio.fail_after(120):
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == -signal.SIGKILL
    inbox = (root / "Memory/Inbox.md").read_text(encoding="utf-8")
    assert "listed before the kill" in inbox and "never listed" not in inbox
    async with started(root) as vg:
        pending = await vg.ok("list_captures")
        later = await vg.ok("capture", text="after the restart")
        inbox = vg.read("Memory/Inbox.md")
    assert [i["text"] for i in pending["items"]] == ["listed before the kill", "committed, never listed"]
    ids = re.findall(r"\^(cap-[0-9a-f]{10})\s*$", inbox, flags=re.M)
    assert ids == [pending["items"][0]["id"], pending["items"][1]["id"], later["id"]]
