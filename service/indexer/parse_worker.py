"""A parse worker: the process `service.indexer.parsepool` starts to read and parse the notes of a
bulk load beside the server's writer.

    python -m service.indexer.parse_worker      (started by the server, never by hand)

Small on purpose: it imports the parser (`service.indexer.rows` and what that imports) and the
standard library, not the settings package, pydantic, asyncio or multiprocessing (~21 MB after
its imports instead of ~41 MB; no resource tracker process beside it). A test pins the set.

The protocol is pickles on its standard input and output:

    server -> worker   first (vault root, the frontmatter `[limits]` as a dict, the format task
                       fields are read in), then per batch (paths, known etags)
    worker -> server   per batch, for each `CHUNK` of its paths what `rows.read_batch` returns
                       (links unresolved: the server resolves them against the paths it holds),
                       then None

A worker holds one chunk at a time (a 200-note batch at once took its peak from ~27 to ~34 MB on
the 10k-note workload); `read_answer` puts the chunks back together exactly as `rows.read_batch`
returns the whole batch. Each chunk is pickled straight onto the pipe, frame by frame, so neither
side holds a second copy of it as bytes. The end of its input (the server closed the pipe, or
died) ends the worker; a write to a server that died fails and ends it too. Anything a parser
prints goes to standard error, never into a message.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from service.indexer import caps, rows
from service.indexer.issues import FileIssue
from service.markdown import frontmatter
from service.vault import dirfd

Batch = tuple[list[rows.Prepared], list[tuple[str, float, int]], list[FileIssue]]
CHUNK = 50  # notes a worker reads, parses and sends at a time


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's `[limits]` for reading frontmatter (`frontmatter.YamlLimits`)."""

    max_frontmatter_values: int
    max_depth: int
    max_value_bytes: int


LIMIT_NAMES = ("max_frontmatter_values", "max_depth", "max_value_bytes")
SENT_LIMITS = (*LIMIT_NAMES, "max_indexed_note_chars")  # and how much of a note is indexed (`caps`)


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """Answer batches read from `inp` on `out` until `inp` ends."""
    root, limits, *more = pickle.load(inp)
    task_format = more[0] if more else None  # None: both formats
    # Never read from the settings here; both set back when done (a test serves in its own
    # process: left set, they would override every later reading's `[limits]` there).
    yaml_before = frontmatter.use_limits(Limits(**{name: limits[name] for name in LIMIT_NAMES}))
    before = caps.use_max_chars(limits.get("max_indexed_note_chars", caps.DEFAULT_MAX_CHARS))
    dirfd.arm_single_open(Path(root))  # a note opened in one call, no link on the way (`reading`)
    try:
        _answer(Path(root), inp, out, task_format)
    finally:
        caps.use_max_chars(before)
        frontmatter.use_limits(yaml_before)


def _answer(vault: Path, inp: IO[bytes], out: IO[bytes], task_format: Any) -> None:
    while True:
        try:
            paths, known = pickle.load(inp)
        except EOFError:
            return
        for start in range(0, len(paths), CHUNK):
            done: Any = rows.read_batch(vault, paths[start : start + CHUNK], known, None, task_format)
            pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()  # the server unpickles this chunk while the next is parsed
            del done
        pickle.dump(None, out)
        out.flush()


def read_answer(inp: IO[bytes]) -> Batch:
    """One batch's answer from a worker: its chunks put together as `rows.read_batch` returns the
    whole batch (which lists the files it could not read before the notes it could not parse)."""
    prepared: list[rows.Prepared] = []
    touch: list[tuple[str, float, int]] = []
    issues: list[FileIssue] = []
    while (part := pickle.load(inp)) is not None:  # EOFError when the worker died
        more_prepared, more_touch, more_issues = part
        prepared += more_prepared
        touch += more_touch
        issues += more_issues
    issues.sort(key=lambda i: i.reason == "parse_failed")  # stable: each kind keeps its order
    return prepared, touch, issues


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers itself,
    # so a worker must not die mid-batch with a traceback on the shared stderr.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print lands on stderr, never inside a message
    with contextlib.suppress(BrokenPipeError), out:  # a broken pipe: the server is gone
        serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
