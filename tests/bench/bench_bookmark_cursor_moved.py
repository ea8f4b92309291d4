"""list_bookmarks: the page after a bookmark was added above the cursor's one, at 100,000
bookmarks, through the dispatch chain in process (`tests.conftest.started`).

    python -m tests.bench.bench_bookmark_cursor_moved [--old /path/to/old/worktree] [--rounds 2] [--n 100000]

Per round: page 1 (limit 200) of version v, one bookmark added at the top (as Obsidian adds
them), page 2 with page 1's cursor ("after insert"); then one more added and a page without a
cursor ("new version, no cursor": what any first page of a new version costs, parse and walk);
and a next page of an unchanged version. Each case: wall, the process's CPU (every thread:
the walk runs in a worker thread) and `bookmarks.key_of` calls. With `--old`, every round runs
in a child process importing that worktree's code, then one importing this one (A B A B).
Prints medians per side and case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CASES = ("after insert", "new version, no cursor", "next page, same version")


def _items(n: int, extra: int) -> list[dict[str, Any]]:
    top = [{"type": "url", "url": f"https://new/{k}", "ctime": 10**12 + k} for k in range(extra)][::-1]
    return top + [
        {"type": "url", "url": f"https://example.org/{i}", "title": f"u{i}", "ctime": i}
        if i % 2
        else {"type": "file", "path": "A.md", "subpath": f"#h{i}", "ctime": i}
        for i in range(n)
    ]


async def _child(n: int, pages: int) -> dict[str, list[list[float]]]:
    from service.obsidian import bookmarks as bm
    from tests.conftest import started

    hashed = [0]
    real = bm.key_of

    def counted(item: dict[str, Any]) -> str:
        hashed[0] += 1
        return real(item)

    bm.key_of = counted  # type: ignore[assignment]
    root = Path(tempfile.mkdtemp(prefix="bench-bm-")) / "v"
    (root / ".obsidian").mkdir(parents=True)
    (root / "A.md").write_text("# A\n")
    file = root / ".obsidian/bookmarks.json"
    file.write_text(json.dumps({"items": _items(n, 0)}, indent=2))
    out: dict[str, list[list[float]]] = {case: [] for case in CASES}
    async with started(root) as vg:

        async def timed(case: str, **args: Any) -> dict[str, Any]:
            hashed[0] = 0
            cpu, wall = time.process_time(), time.perf_counter()
            page = await vg.ok("list_bookmarks", limit=200, **args)
            out[case].append([time.perf_counter() - wall, time.process_time() - cpu, hashed[0]])
            return page

        extra = 0
        for _ in range(pages):
            first = await vg.ok("list_bookmarks", limit=200)
            await timed(CASES[2], cursor=first["next_cursor"])
            extra += 1
            file.write_text(json.dumps({"items": _items(n, extra)}, indent=2))
            page = await timed(CASES[0], cursor=first["next_cursor"])
            assert page["items"][0]["ctime"] == first["items"][-1]["ctime"] + 1  # nothing skipped or repeated
            extra += 1
            file.write_text(json.dumps({"items": _items(n, extra)}, indent=2))
            await timed(CASES[1])
    return out


def _run(code: str, n: int, pages: int) -> dict[str, list[list[float]]]:
    env = {**os.environ, "PYTHONPATH": code}
    args = [sys.executable, __file__, "--child", "--n", str(n)]  # the code imported: `code`'s (PYTHONPATH)
    done = subprocess.run([*args, "--pages", str(pages)], cwd=code, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_child(args.n, args.pages))))
        return
    here = str(Path(__file__).resolve().parents[2])
    sides = {"old": args.old, "new": here} if args.old else {"new": here}
    rows: dict[str, dict[str, list[list[float]]]] = {side: {case: [] for case in CASES} for side in sides}
    for _ in range(args.rounds):
        for side, code in sides.items():
            for case, got in _run(code, args.n, args.pages).items():
                rows[side][case] += got
    report = {
        side: {
            case: {
                "wall_ms": round(statistics.median(r[0] for r in got) * 1000),
                "cpu_ms": round(statistics.median(r[1] for r in got) * 1000),
                "key_of_calls": statistics.median(r[2] for r in got),
            }
            for case, got in cases.items()
        }
        for side, cases in rows.items()
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
