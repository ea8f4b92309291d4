"""`python -m tests.stopped_in_recovery VAULT`: the real server (`vaultgate serve`'s `run_http`)
sent SIGTERM while its start rolls back an interrupted change.

The vault's journal holds an interrupted bulk run (the test made it). A wrapper around the
rollback's file restores sends the process SIGTERM once the first note was removed and holds
until the signal handler has run (the journal is `stopping`), so the stop always meets the
start-up rollback half done (tests/e2e/test_stopped_in_recovery_e2e.py).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from service import serve
from service.app import VaultgateApp
from service.settings import Settings, load_settings
from service.vault import restore
from service.vault.files import VaultFiles


def main(root: Path) -> None:
    apps: list[VaultgateApp] = []
    put_back = restore.restore_file

    async def signal_after_first(files: VaultFiles, rel: str, data: bytes | None, expect: str | None) -> None:
        await put_back(files, rel, data, expect)
        journal = apps[0].plans.journal
        if data is None and not journal.stopping:
            os.kill(os.getpid(), signal.SIGTERM)
            while not journal.stopping:  # noqa: ASYNC110 - set by the signal handler
                await asyncio.sleep(0.01)

    def app_of(settings: Settings, **kw: Any) -> VaultgateApp:
        apps.append(VaultgateApp(settings, **kw))
        return apps[0]

    restore.restore_file = signal_after_first  # type: ignore[assignment]
    serve.VaultgateApp = app_of  # type: ignore[misc,assignment]
    settings = load_settings(
        root, embeddings={"provider": "none"}, plane={"enabled": False}, http={"port": 0}, index={"watch": False}
    )
    serve.run_http(settings)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
