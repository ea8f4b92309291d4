"""A first index held in the middle, for tests of what a write made meanwhile shows.

`FirstIndexGate` makes the start's load run in batches of `BATCH` notes (as a bulk load from
`bulk_threshold` notes on: the word and query indexes deferred, `service/indexer/bulk.py`), and
holds the parse of batch `at` (counted from 0) once it is parsed, until `release()`: the batches
before it are stored, the held one is parsed from the files as they were, and the index is not
ready while the test writes and reads. No timing: the load waits for the test.

The vault (`vault_files`): `Notes/N00.md` … `N39.md`, each with a word of its own (`tok07x`)
and a link to `[[Fresh]]`, a note no file is yet; `Target.md`. Which notes a batch holds follows
the folder's listing order: `held_batch` names the held one's.

`FirstRoundHeld` holds the first group-commit round of a client's writes, so the rest of its
call's writes make one round of many paths (`service/indexer/early.py`'s limits).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import pytest

import service.indexer.runner as runner
from service.indexer import parsepool
from service.indexer.runner import VaultIndexer
from service.vault.events import FileChange

BATCH = 5
NOTES = 40
HOLD_S = 120.0  # a test that fails before `release` lets the load go on after this


def vault_files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        f"Notes/N{i:02d}.md": f"# N{i:02d}\n\nnote tok{i:02d}x, see [[Fresh]]\n" for i in range(NOTES)
    }
    files["Target.md"] = "# Target\n\nwhere links go\n"
    return files


class FirstIndexGate:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, at: int = 3, bulk: bool = True) -> None:
        self.held = asyncio.Event()  # the load is held: batches before `at` stored or storing
        self._go = asyncio.Event()
        self.held_batch: list[str] = []  # the paths of the held batch
        self._calls = 0
        monkeypatch.setattr(runner, "BATCH", BATCH)
        monkeypatch.setattr(runner, "BULK_THRESHOLD", 10 if bulk else 10_000)
        parse = parsepool.Parser.batch

        async def batch(parser: parsepool.Parser, *args: Any) -> parsepool.Batch:
            n, self._calls = self._calls, self._calls + 1
            done = await parse(parser, *args)
            if n == at:
                self.held_batch = list(args[0])
                self.held.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._go.wait(), HOLD_S)
            return done

        monkeypatch.setattr(parsepool.Parser, "batch", batch)

    async def wait_held(self) -> None:
        await asyncio.wait_for(self.held.wait(), 60)

    def release(self) -> None:
        self._go.set()


class FirstRoundHeld:
    """Holds the indexer's first group-commit round until `go`: whatever is queued meanwhile (the
    rest of a client call's writes) makes the next round, one of many paths, whatever the timing.
    `sizes`: the changes of each round."""

    def __init__(self, indexer: VaultIndexer) -> None:
        self.go = asyncio.Event()
        self.sizes: list[int] = []
        apply = indexer._group._apply

        async def held(changes: Sequence[FileChange]) -> object:
            self.sizes.append(len(changes))
            if len(self.sizes) == 1:
                await self.go.wait()
            return await apply(changes)

        indexer._group._apply = held
