"""Reading one vault file's text: the cache by content, the engine when the cache has none, and
the index kept in step.

`OcrReader.read` measures the file (size bound before any byte is read), hashes its bytes (in a
worker thread), and answers from `ocr_cache` when that content was read before by the same
engine — a second call, a copy or a renamed file cost no recognition. Otherwise the engine reads
it (an image in one unit, a PDF page by page, each unit bounded in time, at most
`[ocr] max_pdf_pages` pages). The result is stored by content, the file's row in `ocr_files`
names that content, and every note embedding the file gets the text in its full-text row
(`service.ocr.attached`), all in one write transaction. A file that cannot be read is recorded
too (`ocr_files.error`), so ocr_bulk does not try it again while it is unchanged.
Touches: the file (read), index tables `ocr_cache`, `ocr_files` (read/write), `note_text` (write).
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from service.errors import ComputeBudgetExceeded, NoteNotFound, PathInvalid, ValidationFailed
from service.obsidian.attachments import kind_of
from service.ocr import attached, worker
from service.ocr.engine import OcrEngine, failure_error
from service.storage.db import Database
from service.vault import dirfd
from service.vault.files import etag_of
from service.vault.paths import realpath_now

Line = worker.Line


@dataclass(frozen=True)
class Reading:
    path: str
    kind: str  # image | pdf
    digest: str
    engine: str
    text: str
    lines: list[Line]
    pages: int  # the file's pages (1 for an image)
    pages_read: int
    seconds: float  # recognition time when it was read (the cached figure for a cached reading)
    cached: bool


def readable_kind(rel: str) -> str | None:
    """'image' or 'pdf' when OCR reads this file (SVG is text, not pixels), else None."""
    kind = kind_of(rel)
    if kind == "pdf" or (kind == "image" and not rel.lower().endswith(".svg")):
        return kind
    return None


class OcrReader:
    def __init__(self, engine: OcrEngine, db: Database, max_pdf_pages: int) -> None:
        self.engine = engine
        self.db = db
        self.max_pdf_pages = max_pdf_pages

    async def read(self, vault_id: str, rel: str, root: Path, path: Path, *, force: bool = False) -> Reading:
        """The text of the file `rel` (absolute `path` in the vault at `root`): cached by content
        unless `force`. The file is opened with no link followed on the way, here and in the
        worker (`service.vault.dirfd`): a folder swapped for a link to outside since the path was
        checked is `path_invalid`, never read through; an in-vault link is resolved first."""
        self.engine.check()
        kind = readable_kind(rel)
        if kind is None:
            raise ValidationFailed(
                f"{rel!r} is not an image or PDF",
                details={"path": rel, "reason": "not_an_image", "kind": kind_of(rel)},
                hint="OCR reads png, jpg, webp, gif, bmp, avif images and PDFs.",
            )
        try:
            disk_rel = _in_vault(root, rel, path)
            digest, mtime, size = await asyncio.to_thread(self._measure, root, disk_rel)
        except (FileNotFoundError, NotADirectoryError):
            raise NoteNotFound(f"no file at {rel!r}", details={"path": rel}) from None
        except OSError as exc:
            raise ValidationFailed(f"cannot read {rel!r}: {exc.strerror or exc}", details={"path": rel}) from None
        except _Refused as exc:
            raise failure_error(exc.failure, rel) from None
        if not force:
            cached = await self.db.run_read(lambda conn: self._cached(conn, digest))
            if cached is not None:
                await self.db.run_write(lambda conn: self._store(conn, vault_id, rel, digest, None, mtime, size))
                return _reading(rel, kind, digest, self.engine.name, cached, cached=True)
        try:
            text, lines, pages, read, seconds = await self._recognize(rel, (str(root), disk_rel), kind)
        except (ComputeBudgetExceeded, ValidationFailed) as exc:
            code = exc.code
            await self.db.run_write(lambda conn: self._failed(conn, vault_id, rel, digest, mtime, size, code))
            raise
        row = (text, json.dumps(lines), pages, read, seconds)
        await self.db.run_write(lambda conn: self._store(conn, vault_id, rel, digest, row, mtime, size))
        return Reading(rel, kind, digest, self.engine.name, text, lines, pages, read, seconds, cached=False)

    def _measure(self, root: Path, disk_rel: str) -> tuple[str, float, int]:
        try:
            fd, st = dirfd.open_file(root, disk_rel)  # a FIFO is refused unopened (it would block)
        except IsADirectoryError:
            raise _Refused(worker.Failure("not_a_file", "not a regular file", {"reason": "not_a_file"})) from None
        except PathInvalid as exc:
            if exc.details.get("reason") != "special file":
                raise
            raise _Refused(worker.Failure("not_a_file", "not a regular file", {"reason": "not_a_file"})) from None
        limit = self.engine.bounds.max_bytes
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1) if st.st_size <= limit else b""
        if st.st_size > limit or len(data) > limit:  # also one that grew since it was measured
            size = max(st.st_size, len(data))
            raise _Refused(
                worker.Failure(
                    "too_large",
                    f"the file ({size} bytes) is larger than OCR reads ([ocr] max_file_bytes = {limit})",
                    {"limit": "bytes", "bytes": size, "max_file_bytes": limit},
                )
            )
        if readable_kind(disk_rel) == "image" and (failure := worker.probe_image(data, self.engine.bounds)):
            raise _Refused(failure)
        return etag_of(data), st.st_mtime, st.st_size

    async def _recognize(self, rel: str, where: tuple[str, str], kind: str) -> tuple[str, list[Line], int, int, float]:
        started = time.monotonic()
        pages = 1
        if kind == "pdf":
            counted = await self.engine.pdf_pages(*where)
            if isinstance(counted, worker.Failure):
                raise failure_error(counted, rel)
            pages = counted
        lines: list[Line] = []
        read = min(pages, self.max_pdf_pages)
        for index in range(read):
            page = await self.engine.read(*where, kind, index)
            if isinstance(page, worker.Failure):
                raise failure_error(page, rel)
            lines += page.lines
        text = "\n".join(line[0] for line in lines)
        return text, lines, pages, read, round(time.monotonic() - started, 3)

    def _cached(self, conn: sqlite3.Connection, digest: str) -> tuple[str, str, int, int, float] | None:
        row = conn.execute(
            "SELECT text, lines, pages, pages_read, seconds FROM ocr_cache WHERE digest = ? AND engine = ?",
            (digest, self.engine.name),
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), int(row[2]), int(row[3]), float(row[4]))

    def _store(
        self,
        conn: sqlite3.Connection,
        vault_id: str,
        rel: str,
        digest: str,
        row: tuple[str, str, int, int, float] | None,
        mtime: float,
        size: int,
    ) -> None:
        """Record that `rel` holds `digest` (`row`: freshly read, cache it too) and refresh its embedders."""
        if row is not None:
            conn.execute(
                "INSERT OR REPLACE INTO ocr_cache(digest, engine, text, lines, pages, pages_read, seconds, created_at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (digest, self.engine.name, *row, time.time()),
            )
        self._file_row(conn, vault_id, rel, digest, mtime, size, None)
        attached.refresh_embedders(conn, vault_id, [rel])

    def _failed(
        self,
        conn: sqlite3.Connection,
        vault_id: str,
        rel: str,
        digest: str,
        mtime: float,
        size: int,
        code: str,
    ) -> None:
        self._file_row(conn, vault_id, rel, digest, mtime, size, code)
        attached.refresh_embedders(conn, vault_id, [rel])  # an old text of the file is gone

    def _file_row(
        self, conn: sqlite3.Connection, vault_id: str, rel: str, digest: str, mtime: float, size: int, error: str | None
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO ocr_files(vault_id, path, digest, engine, mtime, size, error, read_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (vault_id, rel, digest, self.engine.name, mtime, size, error, time.time()),
        )

    async def forget(self, vault_id: str, rels: list[str]) -> None:
        """Files gone from the vault: their rows, and their text in the notes that embedded them."""

        def work(conn: sqlite3.Connection) -> None:
            for start in range(0, len(rels), 500):
                part = rels[start : start + 500]
                marks = ",".join("?" * len(part))
                conn.execute(f"DELETE FROM ocr_files WHERE vault_id = ? AND path IN ({marks})", (vault_id, *part))
                attached.refresh_embedders(conn, vault_id, part)

        if rels:
            await self.db.run_write(work)


def _in_vault(root: Path, rel: str, path: Path) -> str:
    """`path` relative to `root` as the disk spells it, an in-vault link on the way resolved now
    (as a write resolves it): what `dirfd` opens. One that leads out of the vault is `path_invalid`."""
    real = Path(realpath_now(path, rel))
    try:
        return real.relative_to(root).as_posix()
    except ValueError:
        raise PathInvalid(
            f"{rel!r} resolves outside the vault", details={"path": rel, "reason": "symlink leaves the vault"}
        ) from None


class _Refused(Exception):  # noqa: N818 - internal: the file is past a bound or undecodable
    def __init__(self, failure: worker.Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _reading(
    rel: str, kind: str, digest: str, engine: str, row: tuple[str, str, int, int, float], *, cached: bool
) -> Reading:
    text, lines_json, pages, read, seconds = row
    lines: list[Line] = [
        (str(t), float(c), (int(b[0]), int(b[1]), int(b[2]), int(b[3])), p) for t, c, b, p in json.loads(lines_json)
    ]
    return Reading(rel, kind, digest, engine, text, lines, pages, read, seconds, cached=cached)
