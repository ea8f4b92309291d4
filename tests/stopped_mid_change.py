"""`python -m tests.stopped_mid_change VAULT [STDIO]`: the real server (`vaultgate serve`'s
`run_http`, or with STDIO `vaultgate stdio`'s start: front, then `run_stdio`) sent SIGTERM while a
`rename_note` writes its files.

A step hook sends the process SIGTERM from inside the rename's commit phase, after its first
file, and holds there until the signal handler has run (the journal is `stopping`), so the
stop always meets the change half written. The test calls the rename over HTTP and checks what
the client gets, how the process exits, and what is on disk (tests/e2e/test_stopped_mid_change_e2e.py).
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
from service.vault.commit import Phase


class SignalMidCommit:
    def __init__(self) -> None:
        self.app: VaultgateApp | None = None

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None:
        if label == "rename_note" and phase == "commit" and done == 1 and self.app is not None:
            os.kill(os.getpid(), signal.SIGTERM)
            while not self.app.plans.journal.stopping:  # noqa: ASYNC110 - set by the signal handler
                await asyncio.sleep(0.01)


def main(root: Path, stdio: bool = False) -> None:
    hook = SignalMidCommit()

    def app_with_hook(settings: Settings, **kw: Any) -> VaultgateApp:
        hook.app = VaultgateApp(settings, step_hook=hook, **kw)
        return hook.app

    serve.VaultgateApp = app_with_hook  # type: ignore[misc,assignment]
    settings = load_settings(
        root, embeddings={"provider": "none"}, plane={"enabled": False}, http={"port": 0}, index={"watch": False}
    )
    if not stdio:
        serve.run_http(settings)
        return
    from service.protocol.shipped_tools_list import list_settings
    from service.protocol.stdio_front import StdioFront, startup_key
    from service.serve_stdio import run_stdio

    front = StdioFront(settings.cache_dir(), startup_key(sys.argv[1:], dict(os.environ)))
    front.start()
    front.check_settings(settings.model_dump_json())
    front.settings_loaded(list_settings(settings))
    sys.exit(run_stdio(app_with_hook(settings, owns_process=True), front))


if __name__ == "__main__":
    main(Path(sys.argv[1]), stdio=len(sys.argv) > 2)
