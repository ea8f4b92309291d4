"""obsidian domain: rewriting a whole file from what was read (bookmarks.json, a drawing, a canvas).

These files are not edited in place: a tool reads the file, builds the new text from it
(parsing, rendering, partly off the event loop) and writes it back. `VaultFiles.write` compares
an etag under the file's lock, but the read came before that lock, so two such calls on one file
read the same version: unguarded, the later write replaces the earlier (a lost update); guarded,
the later call fails although its caller named no version. `rewrite`:

- runs these calls one at a time per (vault, file), so each reads what the one before it wrote;
- writes in the encoding the file was read in (a canvas saved as cp1252 or UTF-16 stays so:
  `decoding.encode_edit`), a new file as UTF-8;
- writes guarded by what it read — that etag when the file existed, create-only when it did not —
  checked under the file's lock (`VaultFiles.write`), so a change made meanwhile by anything else
  (Obsidian, another tool) is never written over;
- when that guard fails and the caller gave no `expected_etag`, reads again and builds on the new
  version (at most `ATTEMPTS` reads, then `conflict`); a caller's `expected_etag` that is not
  the file's now is a `conflict` at once (the version it read is gone), `note_not_found` when
  there is no file (`stale_etag`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from service.errors import AlreadyExists, Conflict, NoteNotFound
from service.tools.context import ToolContext
from service.tools.notes.targets import previewed_absent
from service.vault.casing import CaseTwin
from service.vault.decoding import UTF8
from service.vault.etags import stale_etag
from service.vault.files import NoteFile, WriteResult
from service.vault.keyed_locks import KeyedLocks
from service.vault.paths import VaultPath

T = TypeVar("T")
ATTEMPTS = 3

_lock = KeyedLocks()


def current(ctx: ToolContext, vp: VaultPath) -> NoteFile | None:
    """The file at `vp` as it is now, or None when there is none."""
    try:
        return ctx.vault.files.read(vp)
    except NoteNotFound:
        return None


async def rewrite(
    ctx: ToolContext,
    vp: VaultPath,
    build: Callable[[NoteFile | None], Awaitable[tuple[str, T]]],
    *,
    expected_etag: str | None,
    publish: bool = True,
) -> tuple[WriteResult, T]:
    """Write what `build` makes of the file as it is (None: there is none), guarded by that read;
    returns the write and what `build` returned with the text. `build` may raise to write nothing."""
    files = ctx.vault.files
    async with _lock(ctx.vault.id, vp.rel):
        for _ in range(ATTEMPTS):
            now = current(ctx, vp)
            read_etag = None if now is None else now.etag
            if expected_etag is not None and read_etag != expected_etag:
                raise stale_etag(vp.rel, expected_etag, read_etag)
            text, out = await build(now)
            kept = UTF8 if now is None else now.encoding  # a cp1252 / UTF-16 file stays so (`encode_edit`)
            try:
                result = await files.write(
                    vp, text, expected_etag=read_etag, create_only=now is None, publish=publish, encoding=kept
                )
            except (Conflict, AlreadyExists) as exc:
                if expected_etag is not None or isinstance(exc, CaseTwin):
                    raise
                continue  # changed by something else since the read: build on the new version
            return result, out
    raise Conflict(
        f"{vp.rel!r} kept changing while this call was writing it",
        details={"path": vp.rel, "attempts": ATTEMPTS},
        hint="Call again.",
    )


def check_replace(ctx: ToolContext, vp: VaultPath, now: NoteFile | None, expected_etag: str | None) -> None:
    """A replace the confirm layer let through unasked had nothing to lose when it looked (no
    file, or an empty one: `overwrite_preview`); it must still find nothing to lose. A file made
    or filled since — by a concurrent call, say — is a `conflict`, never replaced without its
    etag or a human's confirmation; calling again asks for them as any replace does. A confirmed
    call whose preview found no file (`previewed_absent`) replaces nothing: a file made since is
    `already_exists`."""
    if now is None or expected_etag is not None:
        return
    if previewed_absent(ctx, vp):  # confirmed as a new file: one made since is not replaced
        raise AlreadyExists(
            f"{vp.rel!r} was created by someone else after the confirmation found no file there",
            details={"path": vp.rel, "current_etag": now.etag},
            hint="Read it; to replace it, pass its etag as expected_etag or call again to be asked.",
        )
    if not now.content.strip() or ctx.notes.get("confirmed") is not None:
        return
    raise Conflict(
        f"{vp.rel!r} was written by someone else while this call ran; replacing it needs its etag or confirmation",
        details={"path": vp.rel, "current_etag": now.etag},
        hint="Read it and pass its etag as expected_etag, or call again to be asked for confirmation.",
    )
