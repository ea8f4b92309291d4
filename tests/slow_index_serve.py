"""`python -m tests.slow_index_serve VAULT`: the real HTTP server (`vaultgate serve`'s `run_http`) on
VAULT whose index applies each group-commit round of acknowledged writes 1.5 s late
(`service.indexer.group.GroupCommit._round`), and with no file watcher: the moment between a
write's acknowledgement and its index update, a few milliseconds normally, is long enough for a
test to call in it every time. Used by tests/reliability/test_moves_meanwhile.py.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from service import serve
from service.indexer import group
from service.settings import load_settings

LATE_S = 1.5

if __name__ == "__main__":
    applied = group.GroupCommit._round

    async def late(self: group.GroupCommit, batch: list[Any]) -> None:
        await asyncio.sleep(LATE_S)
        await applied(self, batch)

    setattr(group.GroupCommit, "_round", late)  # noqa: B010 - the test's fault, on the real class
    settings = load_settings(
        Path(sys.argv[1]),
        embeddings={"provider": "none"},
        plane={"enabled": False},
        index={"watch": False},
        http={"port": 0},
    )
    serve.run_http(settings)
