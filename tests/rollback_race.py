"""`python -m tests.rollback_race VAULT FOLDER ROUNDS`: a server process that starts ROUNDS times
on VAULT, each start held right before its start-up rollback until the test lets it go.

Round i: it waits for FOLDER/prep-i (the test left an interrupted bulk run), builds and starts the
app; the rollback (`service.plans.runs.roll_back_interrupted_bulk`, wrapped) writes
FOLDER/at-i-PID and waits for FOLDER/go-i, which the test writes once every racing process is
there; then the start ends, the app stops, and FOLDER/done-i-PID is written
(tests/tools/sessions/test_rollback_claims.py: two of these race on one vault).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from service.app import VaultgateApp
from service.plans import recovery, runs
from service.plans.journal import Journal
from service.settings import load_settings
from service.vault.vault import Vault


async def _appears(path: Path) -> None:
    while not await asyncio.to_thread(path.exists):  # noqa: ASYNC110 - a file the test writes
        await asyncio.sleep(0.005)


async def main(root: Path, folder: Path, rounds: int) -> None:
    real = recovery.roll_back_interrupted_bulk
    me, now = os.getpid(), [0]

    async def at_the_barrier(journal: Journal, vaults: Mapping[str, Vault]) -> list[str]:
        await asyncio.to_thread((folder / f"at-{now[0]}-{me}").write_text, "")
        await _appears(folder / f"go-{now[0]}")
        return await real(journal, vaults)

    setattr(runs, "roll_back_interrupted_bulk", at_the_barrier)  # noqa: B010 - what PlanRuns.start calls
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    for i in range(rounds):
        now[0] = i
        await _appears(folder / f"prep-{i}")
        async with VaultgateApp(settings).running():
            pass
        await asyncio.to_thread((folder / f"done-{i}-{me}").write_text, "")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])))
