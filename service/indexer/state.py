"""What the indexer's engines (`reconcile`, `apply`) read and write of the running indexer.

`VaultIndexer` (runner.py) owns this state, the background tasks and the life cycle; the engine
modules take it as `IndexerState`, so they never import the component (no import circle) and the
type checker sees every field they touch. Underscored members belong to the component and its
engine modules only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol

from service.activity import Activity
from service.graph.linkpath import PathSet
from service.indexer import rows
from service.indexer.bulk import QueryIndexes
from service.indexer.issues import FileIssue, FileIssues
from service.indexer.known import KnownFiles
from service.indexer.names import NoteNames
from service.indexer.status import Counts, Token
from service.indexer.unresolved import UnresolvedTargets
from service.indexer.writer_job import WriterJob
from service.markdown.tasks import Style
from service.settings.limits import LimitsSettings
from service.storage.db import Database
from service.vault.paths import VaultPaths

State = Literal["starting", "reconciling", "ready", "failed"]


class Inbox(Protocol):
    """What a reconcile asks of `early.EarlyWrites` (which imports the engines that import this)."""

    def taking(self, on: bool) -> AbstractAsyncContextManager[Any]: ...


class VaultView(Protocol):
    """The parts of a served vault the engines use."""

    @property
    def id(self) -> str: ...

    @property
    def paths(self) -> VaultPaths: ...

    @property
    def limits(self) -> LimitsSettings: ...  # the serving app's [limits] (the parse workers read within them)


class IndexerState(Protocol):
    @property
    def vault(self) -> VaultView: ...

    @property
    def db(self) -> Database: ...

    @property
    def parse_workers(self) -> int: ...

    @property
    def activity(self) -> Activity | None: ...  # the calls running (None: not counted)

    state: State
    done: int
    total: int
    backlog: int
    last_sync: float | None
    last_change: float | None
    trigram_ready: bool
    trigram: WriterJob  # the deferred trigram index's rebuild in the background (`writer_job.py`)
    word_merge: WriterJob  # the word index's merge in the background
    query_indexes: QueryIndexes  # a cold load's query indexes, built after ready (`bulk.py`)
    task_format: Style | None  # the Tasks settings' format task fields are read in (`task_format.py`)
    _files: KnownFiles  # every vault file the index knows (notes and attachments)
    _paths: PathSet | None  # PathSet of _files, None after _files changed
    _apply_lock: asyncio.Lock
    _issues: FileIssues  # files left out of the index, or read with a fallback encoding
    _counts: Counts  # row counts, kept in step by the incremental writes (`status.py`)
    _unresolved: UnresolvedTargets  # unresolved link targets by name (`unresolved.py`)
    _read_whole: dict[str, tuple[str, int]]  # notes name_capped read within the cap: (etag, cap)
    names: NoteNames[Any]  # every note's path and aliases, for addresses (`names.py`)

    @property
    def _early(self) -> Inbox:
        """Writes through vaultgate made while the index is built (`early.py`)."""
        ...

    def _write_batch(
        self,
        conn: Any,
        prepared: list[rows.Prepared],
        touch: list[tuple[str, float, int]],
        issues: list[FileIssue] | None = None,
        bulk: bool = False,
        new: bool = False,
    ) -> Token | None: ...

    def _void_kept(self) -> None: ...  # a write the kept counts and targets were not carried over

    def _ours(self, path: str) -> bool: ...  # a queued round of our own writes will read it (`runner.py`)

    async def _bump(self, touched: Iterable[str] | None = None) -> None: ...

    def _rebuild_trigram_later(self) -> None: ...

    def _background(self, work: Coroutine[Any, Any, None], what: str) -> None: ...  # cancelled at stop
