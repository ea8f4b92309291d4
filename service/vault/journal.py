"""The change-journal seam of the vault: what a file was before a change touches it.

`VaultFiles` calls `note_file`/`note_folders`/`note_move` right before it changes anything, under
the path's lock, when a `ChangeRecorder` is set in the current context (`RECORDER`): an action
plan's runner sets one around each step (`service.plans.journal`), so every write, delete, move,
copy or new folder of that step — including the link rewrites a move makes in other notes — is
recorded durably before it happens. Without a recorder these calls cost one context lookup.
A context variable rather than an argument: a step runs an ordinary tool through the dispatch
chain, and the recorder must follow it down to the file layer without every tool passing it on.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

ChangeKind = Literal["file", "folder", "move"]


@dataclass(frozen=True, slots=True)
class PriorState:
    """One change about to happen.

    `file`: `rel` held `prior` (None: absent) and will hold content with etag `new_etag` (None:
    absent). `folder`: the folder `rel` is about to be created. `move`: the folder `rel` is about
    to be renamed to `dst` (a file move is recorded as two `file` changes).
    """

    kind: ChangeKind
    rel: str
    prior: bytes | None = None
    new_etag: str | None = None
    dst: str | None = None


class ChangeRecorder(Protocol):
    async def before(self, change: PriorState, /) -> None: ...


RECORDER: ContextVar[ChangeRecorder | None] = ContextVar("vaultgate_change_recorder", default=None)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


async def note_file(path: Path, rel: str, new_etag: str | None, prior: bytes | None = None) -> None:
    """Record `rel` (on disk at `path`) before it becomes `new_etag` (None: deleted)."""
    recorder = RECORDER.get()
    if recorder is not None:
        await recorder.before(PriorState("file", rel, prior if prior is not None else _read(path), new_etag))


async def note_folders(root: Path, folders: list[Path]) -> None:
    """Record folders about to be created (`missing_folders` order: deepest first)."""
    recorder = RECORDER.get()
    if recorder is not None:
        for folder in reversed(folders):  # outermost first: undone newest first, so innermost first
            await recorder.before(PriorState("folder", folder.relative_to(root).as_posix()))


async def note_move(rel: str, dst: str) -> None:
    recorder = RECORDER.get()
    if recorder is not None:
        await recorder.before(PriorState("move", rel, dst=dst))


def recording() -> bool:
    return RECORDER.get() is not None
