"""`python -m tests.index_killed VAULT MARKER`: a server process that dies in the middle of the
first (cold) index of VAULT.

It starts the app on VAULT with bulk loads from 3 notes and batches of 4, so the cold index runs
in bulk-load mode (query indexes and the word index's triggers deferred); the third batch's
write holds its transaction open, writes MARKER and waits — until the test kills the process
with SIGKILL (tests/reliability/test_index_killed.py).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.indexer import runner
from service.indexer.runner import VaultIndexer
from service.settings import load_settings


def hold_third_batch(marker: Path) -> None:
    original = VaultIndexer._write_batch
    calls = 0

    def held(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        original(indexer, conn, **kwargs)
        if calls == 3:  # two batches committed, the third written and not committed
            marker.write_text("held\n")
            threading.Event().wait()  # the writer's thread, forever: the test kills this process

    VaultIndexer._write_batch = held  # type: ignore[method-assign]


async def main(root: Path, marker: Path) -> None:
    runner.BULK_THRESHOLD = 3
    runner.BATCH = 4
    hold_third_batch(marker)
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False, "parse_workers": 0})
    app = VaultgateApp(settings)
    async with app.running():
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
