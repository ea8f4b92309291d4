"""File watcher: edits made by other programs reach the index and the change bus.

`watchfiles` (Rust notify) reports batches of file-system events, debounced. Each batch is
mapped to vault paths (hidden folders, dot files and our own temp files ignored), applied to
the index with `only_if_changed` — so vaultgate's own writes, already indexed when the watcher
sees them, are dropped — and what really changed is published on the vault's bus with origin
"external" (resource subscribers listen there).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from service.vault.events import FileChange

if TYPE_CHECKING:
    from service.indexer.runner import VaultIndexer

log = logging.getLogger(__name__)


class Watcher:
    def __init__(self, indexer: VaultIndexer, debounce_ms: int = 50) -> None:
        self.indexer = indexer
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._started = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"watch:{self.indexer.vault.id}")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def _relevant(self, raw: str) -> str | None:
        path = Path(raw)
        if path.name.startswith(".") or path.name.endswith(".vgtmp"):
            return None
        return self.indexer.vault.paths.from_abs(path)

    def _changes(self, rels: list[str]) -> list[FileChange]:
        """Batch paths as changes; a folder that appeared (created, or renamed into place) stands
        for every file under it, since the OS reports only the folder itself."""
        root = self.indexer.vault.paths.root
        out: list[FileChange] = []
        for rel in rels:
            full = root / rel
            if full.is_dir():
                for path in sorted(full.rglob("*")):
                    inner = self._relevant(str(path)) if path.is_file() else None
                    if inner and not any(part.startswith(".") for part in Path(inner).parts):
                        out.append(FileChange("modified", inner, origin="external"))
            else:
                out.append(FileChange("modified" if full.exists() else "deleted", rel, origin="external"))
        return out

    async def _run(self) -> None:
        root = self.indexer.vault.paths.root
        try:
            async for batch in watchfiles.awatch(
                root,
                debounce=self.debounce_ms,
                step=20,
                stop_event=self._stop,
                recursive=True,
                ignore_permission_denied=True,
            ):
                rels = sorted({rel for _, raw in batch if (rel := self._relevant(raw))})
                if not rels:
                    continue
                changes = await asyncio.to_thread(self._changes, rels)
                try:
                    effective = await self.indexer.apply(changes, only_if_changed=True)
                except Exception:
                    log.exception("applying external changes failed")
                    continue
                if effective:
                    await self.indexer.vault.bus.publish(effective)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("file watcher for %s stopped", self.indexer.vault.id)
