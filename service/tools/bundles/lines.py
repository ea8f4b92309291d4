"""context bundles domain: where a passage of context_for_query sits in its note's file (`lines`).

A note is read once per call, with no link followed on the way (`service.vault.dirfd`): whole up
to `[limits] max_note_bytes`; past it (a 600 MB note read whole held ~2.4 GB and took ~11 s)
only as far as the index read it, which every passage comes from: its first characters up to
the indexed text's length (`reaches`) and `[limits] max_indexed_note_chars` more, for the
frontmatter before it and for a cap raised since (`service.indexer.caps`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, Field

from service.errors import PathInvalid
from service.vault import dirfd
from service.vault.decoding import decode_start
from service.vault.spelling import on_disk

REDACTED = "[REDACTED"


class LineRange(BaseModel):
    start: int = Field(description="First line (1-based, in the file).")
    end: int = Field(description="Last line (inclusive).")


def reaches(conn: sqlite3.Connection, ids: list[int], limit: int | None) -> dict[int, int]:
    """The characters of the indexed body (`note_text`) of each note of `ids` the index saw over
    `limit` bytes (None: no limit, no note): how far `line_ranges` reads such a note."""
    if limit is None or not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT n.id, length(t.body) FROM notes n JOIN note_text t ON t.note_id = n.id "
        f"WHERE n.id IN ({marks}) AND n.size > ?",
        [*ids, limit],
    )
    return {int(note): int(chars or 0) for note, chars in rows}


def _shown(line: str, tail: bool) -> str:
    """The part of a passage line that is the file's own text (outside redaction markers)."""
    if REDACTED not in line:
        return line[-60:] if tail else line[:60]
    return line.rsplit("]", 1)[-1].strip()[-60:] if tail else line.split(REDACTED)[0].strip()[:60]


def line_ranges(
    root: Path, spans: list[tuple[str, str]], reach: Mapping[str, int], limit: int | None
) -> list[LineRange | None]:
    """`_lines` of each (path, passage text), each file read once (one worker-thread call), by the
    name its folder spells it (an NFD name from macOS: `service.vault.spelling`). A file over
    `limit` bytes is read for its first `reach[path]` characters only (module doc)."""
    files: dict[str, list[str] | None] = {}
    out: list[LineRange | None] = []
    for path, text in spans:
        if path not in files:
            files[path] = _file_lines(root, on_disk(str(root), path), reach[path], limit)
        found = files[path]
        out.append(_lines(found, text) if found is not None else None)
    return out


def _file_lines(root: Path, rel: str, chars: int, limit: int | None) -> list[str] | None:
    """The lines of the note `rel` (over `limit` bytes: of its first `chars` characters, the rest
    never read), opened with no link followed on the way (`service.vault.dirfd`): a folder swapped
    for a link to outside since the search is never read through (None, as for a note gone). An
    in-vault link on the way is resolved first, as a read resolves it."""

    def lines_of(fh: BinaryIO) -> list[str]:
        if limit is None or os.fstat(fh.fileno()).st_size <= limit:
            return fh.read().decode("utf-8").splitlines()
        return decode_start(fh, 4 * chars)[:chars].splitlines()  # a character: 4 bytes at most

    try:
        try:
            return dirfd.scan_file(root, rel, lines_of)
        except PathInvalid:  # a link on the way: read where it leads now, if that is in the vault
            real = Path(os.path.realpath(root / rel))
            if not real.is_relative_to(root) or real == root:
                return None
            return dirfd.scan_file(root, real.relative_to(root).as_posix(), lines_of)
    except (OSError, UnicodeDecodeError, PathInvalid):
        return None


def _lines(lines: list[str], text: str) -> LineRange | None:
    """1-based file lines of a passage, from where the passage itself sits in the file.

    The passage's non-blank lines are laid over the file's non-blank lines at each place where
    its first line that is not wholly redacted occurs; the place where most of its lines match
    in order wins (the first of equals). A line that also occurs earlier in the note — a heading
    repeated in a list of contents, a sentence quoted twice — so never pulls the range back to
    that earlier place. The end is the file line under the passage's last line that is not wholly
    redacted (searched onward from there when that line does not match: a window cut mid-line)."""
    parts = [p.strip() for p in text.splitlines() if p.strip()]
    head = next(((j, _shown(p, False)) for j, p in enumerate(parts) if _shown(p, False)), None)
    if head is None:
        return None
    solid = [i for i, line in enumerate(lines) if line.strip()]  # the file's non-blank lines
    best: tuple[int, int] | None = None  # (matched lines, index in `solid` of the passage's first line)
    for k, i in enumerate(solid):
        if head[1] not in lines[i] or k < head[0]:
            continue
        first = k - head[0]
        matched = sum(
            1
            for j, part in enumerate(parts)
            if first + j < len(solid) and (_shown(part, False) or part) in lines[solid[first + j]]
        )
        if best is None or matched > best[0]:
            best = (matched, first)
            if matched == len(parts):
                break
    if best is None:
        return None
    first = best[1]
    tail = next(((j, _shown(p, True)) for j, p in enumerate(reversed(parts)) if _shown(p, True)), None)
    last = min(first + len(parts) - 1 - (tail[0] if tail else 0), len(solid) - 1)
    end = solid[last]
    if tail is not None and tail[1] not in lines[end]:
        after = solid[first + head[0]]
        end = next((i for i in range(after, len(lines)) if tail[1] in lines[i]), end)
        ahead = tail[0]
        while ahead and end < len(lines) - 1:
            end += 1
            ahead -= 1 if lines[end].strip() else 0
    elif tail is not None:
        end = solid[min(last + tail[0], len(solid) - 1)]
    return LineRange(start=solid[first] + 1, end=end + 1)
