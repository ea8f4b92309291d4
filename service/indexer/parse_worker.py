"""A parse worker: the process `service.indexer.parsepool` starts to read and parse the notes of a
bulk load beside the server's writer.

    python -m service.indexer.parse_worker      (started by the server, never by hand)

Small on purpose: it imports the parser (`service.indexer.rows` and what that imports) and the
standard library, not the settings package, pydantic, asyncio or multiprocessing (~21 MB after
its imports instead of ~41 MB; no resource tracker process beside it). A test pins the set.

The protocol is pickles on its standard input and output, one message each way per batch:

    server -> worker   first (vault root, the frontmatter `[limits]` as a dict), then per batch
                       (paths, known etags)
    worker -> server   per batch what `rows.read_batch` returns, links unresolved (the server
                       resolves them against the paths it holds)

A result is pickled straight onto the pipe, frame by frame, so neither side holds a second copy
of a batch as bytes. The end of its input (the server closed the pipe, or died) ends the worker;
a write to a server that died fails and ends it too. Anything a parser prints goes to standard
error, never into a message.
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

from service.indexer import rows
from service.markdown import frontmatter


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's `[limits]` for reading frontmatter (`frontmatter.YamlLimits`)."""

    max_frontmatter_values: int
    max_depth: int
    max_value_bytes: int


LIMIT_NAMES = ("max_frontmatter_values", "max_depth", "max_value_bytes")


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """Answer batches read from `inp` on `out` until `inp` ends."""
    root, limits = pickle.load(inp)
    frontmatter.use_limits(Limits(**{name: limits[name] for name in LIMIT_NAMES}))
    vault = Path(root)
    while True:
        try:
            paths, known = pickle.load(inp)
        except EOFError:
            return
        done: Any = rows.read_batch(vault, paths, known, None)  # links resolved by the server
        pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
        del done


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
