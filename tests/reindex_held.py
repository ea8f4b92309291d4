"""`python -m tests.reindex_held VAULT MARKER`: a server process held in the middle of a reindex job.

It starts the app on VAULT, waits for its first index, and calls `reindex` (mode full) in
process with a progress listener that, at the job's first progress, writes MARKER and waits
forever: the job's row stays `running` until the test kills the process (SIGKILL) or ends the
block (tests/tools/index/test_job_owners.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from service.app import VaultgateApp
from service.indexer.runner import indexer_of
from service.settings import load_settings
from service.types import Principal


async def main(root: Path, marker: Path) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    app = VaultgateApp(settings)

    async def hold(done: float, total: float | None, message: str | None) -> None:
        await asyncio.to_thread(marker.write_text, "held\n")
        await asyncio.Event().wait()  # forever: the job awaits its listeners

    async with app.running():
        app.index_jobs.listener_timeout_s = 3600.0  # the job waits on its listener, not past it
        for vault in app.vaults.values():
            indexer = indexer_of(vault)
            assert indexer is not None
            await indexer.wait_ready(120)
        await app.dispatcher.call(
            "reindex", {"mode": "full", "wait": True}, principal=Principal.local("test"), progress=hold
        )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
