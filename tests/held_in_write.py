"""`python -m tests.held_in_write VAULT MARKER REL CALL`: a server process held in the middle of an
atomic write, its temp file written, until the test kills it.

It starts the app on VAULT (the real chain; the data folder of the test) and makes the call CALL
(JSON `{"tool": ..., "args": {...}}`) through the dispatch chain; the write of REL stops at its last
check before the rename (`files.write_in`'s `check`: the temp file is written and synced beside the
note), writes MARKER and waits there forever. The test then kills the process with SIGKILL from
outside (`tests.killed.held` or its own), so the temp file of the cut write is left in the vault.
Unlike `tests.plan_killed.kill_when_writing`, the process does not signal itself: it may run as
the first process of its own PID namespace (as in a container), which ignores its own SIGKILL.
Used by tests/reliability/test_pid_one_temp_files.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault import files, reread, temps


def hold_in_write(rel: str, marker: Path) -> None:
    """Make the atomic write of `rel` stop before its rename (temp file written), forever."""
    write = temps.write_in  # what `files` and `reread` import

    def write_held(folder_fd: int, name: str, data: bytes, *, rel: str, check: Any = None, **more: Any) -> Any:
        if rel != target:
            return write(folder_fd, name, data, rel=rel, check=check, **more)

        def check_then_hold() -> None:
            if check is not None:
                check()
            marker.write_text("held\n", encoding="utf-8")
            threading.Event().wait()  # until the test kills the process

        return write(folder_fd, name, data, rel=rel, check=check_then_hold, **more)

    target = rel
    setattr(files, "write_in", write_held)  # noqa: B010 - a module's imported name, replaced
    setattr(reread, "write_in", write_held)  # noqa: B010


async def main(root: Path, call: dict[str, Any]) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    app = VaultgateApp(settings)
    async with app.running():
        await app.dispatcher.call(call["tool"], call["args"], principal=Principal.local("test"))


if __name__ == "__main__":
    hold_in_write(sys.argv[3], Path(sys.argv[2]))
    asyncio.run(main(Path(sys.argv[1]), json.loads(sys.argv[4])))
