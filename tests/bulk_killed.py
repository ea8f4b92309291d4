"""`python -m tests.bulk_killed VAULT MARKER`: a server process that dies in the middle of a
`bulk_create_notes` call.

It starts the app on VAULT and calls bulk_create_notes (six notes, one of them overwriting an
existing note) in process; a step hook holds the call in its commit phase after three notes are
written, writes MARKER and waits forever — until the test kills the process with SIGKILL
(tests/tools/notes/test_bulk_killed.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault.commit import Phase
from service.vault.files import etag_of

NEW = [{"path": f"Bulk/Sub/n{i}.md", "content": f"# Bulk {i}\n"} for i in range(5)]


class HoldAndSignal:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None:
        if label == "bulk_create_notes" and phase == "commit" and done == 3:
            self.marker.write_text("held\n")
            await asyncio.Event().wait()  # forever: the test kills this process


async def main(root: Path, marker: Path) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False})
    app = VaultgateApp(settings, step_hook=HoldAndSignal(marker))
    etag = etag_of((root / "Existing.md").read_bytes())  # an overwrite with its etag needs no human
    notes = [{"path": "Existing.md", "content": "# Replaced\n", "expected_etag": etag}, *NEW]
    async with app.running():
        await app.dispatcher.call(
            "bulk_create_notes", {"notes": notes, "overwrite": True}, principal=Principal.local("test")
        )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
