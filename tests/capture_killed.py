"""`python -m tests.capture_killed VAULT`: a server process killed (SIGKILL) while it lists a capture.

It starts the app on VAULT (the real chain and the state database of the test's data folder) and
captures twice in process; the second capture kills the process right after its row was
committed, as it starts listing it in the inbox note (tests/tools/memory/test_captures_killed.py).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from service.app import VaultgateApp
from service.memory.captures import Capture, CaptureQueue
from service.settings import load_settings
from service.types import Principal


def kill_at_second_listing() -> None:
    unlisted = CaptureQueue.unlisted
    seen = [0]

    async def unlisted_or_die(self: CaptureQueue, vault_id: str, inbox: str) -> list[Capture]:
        seen[0] += 1
        if seen[0] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return await unlisted(self, vault_id, inbox)

    CaptureQueue.unlisted = unlisted_or_die  # type: ignore[method-assign]


async def main(root: Path) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False})
    app = VaultgateApp(settings)
    async with app.running():
        for text in ("listed before the kill", "committed, never listed"):
            await app.dispatcher.call("capture", {"text": text}, principal=Principal.local("test"))


if __name__ == "__main__":
    kill_at_second_listing()
    asyncio.run(main(Path(sys.argv[1])))
