"""The audit's most linked notes read on an indexed bench vault: the query before and now, alternated.

    python -m tests.bench.bench_most_linked [--notes 100000] [--rounds 5]

The audit's unlinked mentions look for the most linked notes' titles first
(`service.plane.audit._MOST_LINKED`). The query before read each link's row for its source (to
leave out the plane's own notes' links); the one now counts from the links' target index alone and
takes off the links of `Digests/` notes. Both run on one read-only connection to the bench
folder's index of the standard vault of `--notes` notes (indexed beforehand, e.g. by
`bench_calls_beside_plane`), in turn (A B A B), each round timed; the two answers are checked
equal. Prints JSON (seconds per round, medians, their ratio).
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import statistics
import time

from service.plane.audit import _MOST_LINKED, _NOT_OWN, MOST_LINKED, OWN
from tests.bench.common import WORKDIR, report

BEFORE = (
    "SELECT target_path, COUNT(*) AS n FROM links WHERE vault_id = ? AND target_path LIKE '%.md'"
    f" AND src_id NOT IN {_NOT_OWN} GROUP BY target_path ORDER BY n DESC, target_path LIMIT ?"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    [db] = (WORKDIR / "xdg-cache" / "vaultgate").glob(f"vault-{args.notes}-42-*/cache.db")
    seconds: dict[str, list[float]] = {"before": [], "now": []}
    answers: dict[str, list[tuple[str, int]]] = {}
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        params = ("main", "main", OWN, MOST_LINKED)  # both take the same parameters
        for _ in range(args.rounds):
            for name, sql in (("before", BEFORE), ("now", _MOST_LINKED)):
                began = time.perf_counter()
                answers[name] = conn.execute(sql, params).fetchall()
                seconds[name].append(round(time.perf_counter() - began, 3))
        links = conn.execute("SELECT COUNT(*) FROM links").fetchone()[0]
    medians = {k: statistics.median(v) for k, v in seconds.items()}
    report(
        "bench_most_linked",
        {
            "notes": args.notes,
            "links": links,
            "seconds": seconds,
            "median_s": medians,
            "ratio": round(medians["before"] / medians["now"], 1) if medians["now"] else None,
            "same_answer": answers["before"] == answers["now"],
        },
    )


if __name__ == "__main__":
    main()
