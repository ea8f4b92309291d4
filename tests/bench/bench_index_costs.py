"""Costs of the indexer that grow with the vault, in process, on a warm index (issue 39).

For each tree (this one, and with `--old DIR` an older checkout, alternated round by round):
- a reconcile with a note added, one changed and one deleted, then the first `counts()` (what
  `index_status` reads; a full count of five tables when the reconcile left none kept);
- `apply.expand` of a deletion the index never held a path for, and of a folder of ~6.5k files
  (100k notes), and the whole `apply` of such a deletion;
- the note names (`NoteNames.get`) after a round touched one note.

Usage: `python -m tests.bench.bench_index_costs --notes 100000 --old /tmp/old --rounds 3`
(`--index FILE`: a prepared `cache.db` of the standard vault, copied instead of building one).
The vault and index are copies under `--scratch` (default $VAULTGATE_BENCH_DIR), removed
afterwards unless `--keep`.
Each side runs in a child process whose `service` package is its tree's (`--child`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHANGED_FOLDER = "Inbox"
BIG_FOLDER = "People"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


async def child(root: Path, reps: int) -> dict[str, Any]:
    """Run in a tree (its `service` first on sys.path): the figures of that tree."""
    from service.app import VaultgateApp
    from service.graph.address import NoteName
    from service.graph.queries import GraphQueries
    from service.indexer import apply as apply_mod
    from service.indexer import status
    from service.indexer.runner import indexer_of
    from service.vault.events import FileChange
    from tests.conftest import settings_for

    out: dict[str, Any] = {}
    app = VaultgateApp(settings_for(root, index={"watch": False}))
    async with app.running():
        ix = indexer_of(next(iter(app.vaults.values())))
        assert ix is not None
        await ix.wait_ready(900)
        await ix.counts()
        some = sorted(p for p in (root / CHANGED_FOLDER).iterdir() if p.suffix == ".md")[: reps + 1]
        first: list[float] = []
        made: list[int] = []
        for r in range(reps):
            (root / CHANGED_FOLDER / f"costs-new-{r}.md").write_text(f"# new {r}\n[[{some[0].stem}]] #costs\n- [ ] t\n")
            if r:
                (root / CHANGED_FOLDER / f"costs-new-{r - 1}.md").unlink()
            some[r].write_text(some[r].read_text(encoding="utf-8") + f"\ncosts change {r} [[Nowhere {r}]]\n")
            await ix.reconcile()
            full = ix._counts.full_counts
            t = time.perf_counter()
            got = await ix.counts()
            first.append(_ms(t))
            made.append(ix._counts.full_counts - full)
        exact = status._named(await ix.db.fetchone(status._COUNTS, (ix.vault.id,)))
        out["first_counts_after_reconcile_ms"] = [round(x, 2) for x in first]
        out["full_counts_made"] = made
        out["counts_exact"] = got == exact
        for name, change in (
            ("unknown_path", FileChange("deleted", "Nowhere/costs.md")),
            ("folder", FileChange("deleted", BIG_FOLDER)),
        ):
            times = []
            for _ in range(21):
                t = time.perf_counter()
                found = apply_mod.expand(change, ix.vault.paths, ix._files)
                times.append(_ms(t))
            out[f"expand_{name}_ms"] = round(statistics.median(times), 3)
            out[f"expand_{name}_paths"] = len(found[1])
        times = []
        for _ in range(11):
            t = time.perf_counter()
            await ix.apply([FileChange("deleted", "Nowhere/costs.md", origin="external")], only_if_changed=True)
            times.append(_ms(t))
        out["apply_unknown_path_deleted_ms"] = round(statistics.median(times), 3)

        async def load(paths: list[str] | None = None) -> list[Any]:
            rows = await GraphQueries(app.services.db).note_names(ix.vault.id, paths)
            return [NoteName(p, tuple(a)) for p, a in rows]

        await ix.names.get(load)
        rels = [p.relative_to(root).as_posix() for p in some]
        times = []
        for i in range(21):
            ix.names.touched([rels[i % len(rels)]])
            t = time.perf_counter()
            await ix.names.get(load)
            times.append(_ms(t))
        out["names_after_one_change_ms"] = round(statistics.median(times), 3)
    for r in range(reps):
        (root / CHANGED_FOLDER / f"costs-new-{r}.md").unlink(missing_ok=True)
    return out


def run_side(tree: Path, root: Path, reps: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(root), "--reps", str(reps)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--old", type=Path, help="an older checkout, alternated with this tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3, help="reconciles per side and round")
    parser.add_argument("--index", type=Path, help="a prepared cache.db of the standard vault")
    parser.add_argument("--scratch", type=Path, help="where the copies go (default: $VAULTGATE_BENCH_DIR)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(child(args.child, args.reps))))
        return
    from service.settings import load_settings
    from tests.bench.common import WORKDIR, report, standard_vault

    source, _meta = standard_vault(args.notes)
    scratch = args.scratch or WORKDIR
    os.environ["XDG_CACHE_HOME"] = str(scratch / "xdg-cache")  # the copy's index (the children's too)
    root = scratch / f"index-costs-{args.notes}"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".vaultgate"))  # mtimes kept
    cache = load_settings(root).cache_dir()
    if args.index is not None:
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.index, cache / "cache.db")
    new = Path(__file__).resolve().parents[2]
    sides = {"new": new, **({"old": args.old.resolve()} if args.old is not None else {})}
    samples: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    loads = [os.getloadavg()[0]]
    try:
        for r in range(args.rounds):
            for side in list(sides) if r % 2 == 0 else list(reversed(sides)):
                samples[side].append(run_side(sides[side], root, args.reps))
                loads.append(os.getloadavg()[0])
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
    result: dict[str, Any] = {"notes": args.notes, "rounds": args.rounds, "load": [round(x, 2) for x in loads]}
    for side, runs in samples.items():
        figures: dict[str, Any] = {"runs": runs}
        for key in runs[0]:
            values = [v for run in runs for v in (run[key] if isinstance(run[key], list) else [run[key]])]
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                figures[f"{key}_median"] = round(statistics.median(values), 3)
        result[side] = figures
    report("bench_index_costs", result)


if __name__ == "__main__":
    main()
