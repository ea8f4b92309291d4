"""`python -m tests.plan_killed VAULT MARKER [in-write]`: a server process that dies in the middle of a plan.

It starts the app on VAULT (the real chain, journal and state database of the test's data
folder) and runs an action plan in process; a step hook holds the plan's rename halfway through
its commit (the renamed note and one link rewrite written, the other rewrites not), writes
MARKER and waits forever — until the test kills the process with SIGKILL
(tests/tools/sessions/test_plan_killed.py).

With `in-write [REL]`, the process kills itself (SIGKILL) in the worker thread that writes REL
(default `Notes/n01.md`, an append), after the journal recorded the file's prior state and before
the file is changed: the narrowest window between the journal and the change it announces. REL may
be a note the plan creates (`K/b.md`): a create is killed after its record, before its temp file.
The plan's calls then run one at a time, so no other write is caught halfway.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault import files, reread
from service.vault.commit import Phase
from tests.polling import until

PLAN: dict[str, Any] = {
    "goal": "killed halfway",
    "steps": [
        {"id": "create", "tool": "create_note", "foreach": ["K/a", "K/b", "K/c"], "args": {"path": "$item"}},
        {
            "id": "append",
            "tool": "append_note",
            "foreach": ["Notes/n00", "Notes/n01"],
            "args": {"path": "$item", "content": "x"},
        },
        {"id": "rename", "tool": "rename_note", "args": {"path": "Move/m0.md", "new_path": "m0 renamed"}},
        {"id": "after", "tool": "create_note", "args": {"path": "K/never"}},
    ],
}


class HoldAndSignal:
    def __init__(self, marker: Path) -> None:
        self.marker = marker
        self.app: VaultgateApp | None = None

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None:
        if label == "rename_note" and phase == "commit" and done == 2:
            await self._chunk_written()
            self.marker.write_text("held\n")
            await asyncio.Event().wait()  # forever: the test kills this process

    async def _chunk_written(self) -> None:
        """Wait until the other writes of the held rewrite's chunk have ended (each holds its note's
        lock while it writes; the chunk starts no other while this one is held). Killed halfway
        through one, its temp file was left, newer than the test process whose restart then keeps it
        (`temps.sweep` removes only what was written before the process started): a flake under load."""
        assert self.app is not None
        files = [vault.files for vault in self.app.vaults.values()]
        await until(
            lambda: not any(lock.locked() for f in files for lock in list(f._locks.values())),
            "the held chunk's other writes ended",
        )


def kill_when_writing(rel: str) -> None:
    """Make the atomic file write of `rel` die (SIGKILL) once its change is recorded, before the
    file changes. Both writers are wrapped: `files` (create, overwrite) and `reread` (a
    read-modify-write such as an append). An overwrite or a read-modify-write is killed in its
    last check before the rename (`check`, where a read-modify-write records the prior bytes),
    its temp file written; a create (`exclusive`: a hard link, no check) is recorded before
    `write_in` is called, so it is killed on entry, before its temp file exists."""
    write = files.write_in

    def write_or_die(
        folder_fd: int, name: str, data: bytes, *, exclusive: bool, rel: str, check: Any = None, **more: Any
    ) -> os.stat_result:
        if rel != target:
            return write(folder_fd, name, data, exclusive=exclusive, rel=rel, check=check, **more)
        if exclusive:  # a create: its record (absent before) is in the spool already
            os.kill(os.getpid(), signal.SIGKILL)

        def check_then_die() -> None:
            if check is not None:
                check()  # a journaled write records the prior bytes here
            os.kill(os.getpid(), signal.SIGKILL)

        return write(folder_fd, name, data, exclusive=exclusive, rel=rel, check=check_then_die, **more)

    target = rel
    files.write_in = write_or_die  # type: ignore[assignment]
    reread.write_in = write_or_die  # type: ignore[assignment]


async def main(root: Path, marker: Path, concurrency: int, plan: dict[str, Any] = PLAN) -> None:
    settings = load_settings(
        root, embeddings={"provider": "none"}, index={"watch": False}, plans={"max_concurrency": concurrency}
    )
    hook = HoldAndSignal(marker)
    app = hook.app = VaultgateApp(settings, step_hook=hook)
    async with app.running():
        who = Principal.local("test")
        first = await app.dispatcher.call("execute_plan", {"plan": plan}, principal=who)
        error = (first.structured or {}).get("error") or {}
        if error.get("code") == "elicit_required":  # a plan that asks a human: confirmed as the tests confirm
            store = app.services.confirmations
            [request] = await store.pending(error["details"]["args_hash"], error["details"]["vault"])
            token, _ = await store.mint(request, minted_by="test")
            await app.dispatcher.call("execute_plan", {"plan": plan, "elicit_token": str(token)}, principal=who)


if __name__ == "__main__":
    in_write = sys.argv[3:4] == ["in-write"]
    if in_write:
        kill_when_writing(sys.argv[4] if len(sys.argv) > 4 else "Notes/n01.md")
    # in-write: one call at a time, so no other write is caught halfway (its temp file left behind)
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), 1 if in_write else 4))
