"""Files the index could not take as they are: recorded per vault, never fatal to a batch.

One bad file must never take the vault down. Every place that reads or stores a file for the
index (the scan, the batch reader, the writer, the watcher's changes) turns a failure of one file
into a `FileIssue` and goes on with the others; `index_status` and `server_health` report the
counts and a few examples. Reasons:

    name_not_utf8  a file or folder name that is not valid UTF-8: skipped, with all below a folder
    special_file   a FIFO, socket or device: skipped, never opened (opening a FIFO blocks)
    unreadable     the operating system refused to read it (permissions, an I/O error): skipped
    parse_failed   parsing it raised: skipped
    store_failed   storing its rows raised: skipped (its rows rolled back alone)
    encoding       not UTF-8: indexed, read with the encoding named in `detail`
    capped         over a per-note cap (`service.indexer.caps`): indexed without the tags, links or
                   other rows past the cap; `detail` says what was cut ('tags 100000 > 10000')

Paths are vault-relative and printable (`service.vault.decoding.printable_name`: a byte that is
not UTF-8 shows as `\\xNN`). What is kept is what this process saw: a warm restart does not read
unchanged notes again, so a note indexed with a fallback encoding before it is not counted then
(the notes indexed `capped` by their length are: `reconcile.name_capped` reads them again).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Collection, Iterable
from typing import Any, NamedTuple

from service.vault.decoding import printable_name

log = logging.getLogger(__name__)

SKIPPED = frozenset({"name_not_utf8", "special_file", "unreadable", "parse_failed", "store_failed"})
INDEXED = {"encoding": "indexed with encoding", "capped": "indexed capped:"}  # the reasons of notes indexed
FROM_SCAN = frozenset({"name_not_utf8", "special_file"})  # a new scan replaces what the last one found
MAX_KEPT = 10_000  # issues kept (counted beyond it, never listed)
MAX_LOGGED = 20  # warnings logged one by one per batch; the rest as one line
EXAMPLES = 5


class FileIssue(NamedTuple):
    path: str
    reason: str
    detail: str = ""


def issue(path: str, reason: str, detail: str = "") -> FileIssue:
    """A `FileIssue` whose path is printable whatever bytes the name holds."""
    return FileIssue(printable_name(path), reason, detail[:200])


class FileIssues:
    """The issues of one vault's files, by path (the last one seen for each path)."""

    def __init__(self, vault_id: str) -> None:
        self.vault_id = vault_id
        self._by_path: dict[str, FileIssue] = {}
        self._dropped = 0  # issues not kept beyond MAX_KEPT

    def record(self, issues: Iterable[FileIssue]) -> None:
        new = [i for i in issues if self._by_path.get(i.path) != i]
        for n, found in enumerate(new):
            if n < MAX_LOGGED:
                what = INDEXED.get(found.reason, f"skipped ({found.reason})")
                log.warning("%s: %s %s %s", self.vault_id, found.path, what, found.detail)
            if found.path in self._by_path or len(self._by_path) < MAX_KEPT:
                self._by_path[found.path] = found
            else:
                self._dropped += 1
        if len(new) > MAX_LOGGED:
            log.warning(
                "%s: %d more files skipped or read with a fallback encoding", self.vault_id, len(new) - MAX_LOGGED
            )

    def clear(self, paths: Iterable[str], *, but_indexed: Collection[str] = ()) -> None:
        """Forget the issues of files read again without one (or gone). Of the files in
        `but_indexed` (found as the index has them, so not indexed again) the issues recorded when
        they were indexed (`INDEXED`: capped, a fallback encoding) are kept: they still hold."""
        kept = {printable_name(p) for p in but_indexed}
        for path in map(printable_name, paths):
            if path in kept and (found := self._by_path.get(path)) is not None and found.reason in INDEXED:
                continue
            self._by_path.pop(path, None)

    def rescanned(self, found: Iterable[FileIssue], present: Collection[str]) -> None:
        """A new scan of the whole vault: its name and special-file issues replace the last scan's,
        and the issues of files no longer `present` are dropped."""
        for path in [p for p, i in self._by_path.items() if i.reason in FROM_SCAN or p not in present]:
            del self._by_path[path]
        self.record(found)

    def paths(self, reason: str) -> set[str]:
        return {p for p, i in self._by_path.items() if i.reason == reason}

    def text_capped(self) -> list[str]:
        """The notes indexed only up to `[limits] max_indexed_note_chars` (their text past it is
        neither searched nor listed), in path order: at most MAX_KEPT, as every issue."""
        return sorted(p for p, i in self._by_path.items() if i.reason == "capped" and i.detail.startswith("text "))

    def summary(self) -> dict[str, Any]:
        """Counts by reason, how many files are out of the index, and a few examples."""
        by_reason = Counter(i.reason for i in self._by_path.values())
        skipped = sum(n for reason, n in by_reason.items() if reason in SKIPPED) + self._dropped
        ordered = sorted(self._by_path.values(), key=lambda i: (i.reason not in SKIPPED, i.path))
        return {
            "skipped": skipped,
            "fallback_encoding": by_reason.get("encoding", 0),
            "by_reason": dict(sorted(by_reason.items())),
            "examples": [i._asdict() for i in ordered[:EXAMPLES]],
        }

    @property
    def count(self) -> int:
        return len(self._by_path) + self._dropped
