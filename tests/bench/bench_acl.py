"""Path ACL cost: raw decisions, and listing/search/read calls with and without path rules.

Run: `python -m tests.bench.bench_acl [--notes 2000] [--calls 300]`. The standard generated
vault, the full dispatch chain in-process (no HTTP, so the ACL's own cost is visible):
- `decide_us`: one `can_read` decision (µs) over every note path, for a guard with the ACL
  worked example of docs/security.md plus 40 extra prefix rules (the longest-prefix scan is linear in rules);
- `open` vs `acl`: p50/p95 (ms) of list_notes (one page of 200), search_text (a common word)
  and read_note, on a server without rules and on one with the worked example
  (default deny; read Inbox/ and Projects/; write Inbox/; nothing in Archive/).
Prints JSON (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from service.security.acl import AclGuard
from service.types import Principal
from tests.bench.common import report, standard_vault, summary_ms
from tests.conftest import settings_for, started

WORKED = {
    "default_deny": True,
    "read_paths": ["Inbox/**", "Projects/**"],
    "write_paths": ["Inbox/**"],
    "delete_paths": [],
    "prefix_rules": [{"path": "Archive", "read": "deny", "write": "deny"}],
}
MANY_RULES = {
    **WORKED,
    "prefix_rules": [
        *WORKED["prefix_rules"],  # type: ignore[misc]
        *({"path": f"Projects/p{i}/sub", "read": "deny" if i % 2 else "allow"} for i in range(40)),
    ],
}


def decisions(root: Path, paths: list[str]) -> float:
    guard = AclGuard(settings_for(root, acl=MANY_RULES))
    me = Principal(subject="bench", scopes=frozenset({"read:vault"}), authenticated=True)
    rounds = 5
    t0 = time.perf_counter()
    for _ in range(rounds):
        for rel in paths:
            guard.decide(me, "main", rel, "read")
    return (time.perf_counter() - t0) / (rounds * len(paths)) * 1e6


async def calls(root: Path, acl: dict[str, Any] | None, reads: list[str], n: int) -> dict[str, Any]:
    overrides: dict[str, Any] = {"throttle": {"enabled": False}, "audit": {"enabled": False}}
    if acl is not None:
        overrides["acl"] = acl
    out: dict[str, Any] = {}
    async with started(root, **overrides) as vg:
        await vg.indexed()
        for name, tool, args in (
            ("list_notes", "list_notes", {"limit": 200}),
            ("search_text", "search_text", {"query": "priority", "limit": 20}),
        ):
            await vg.ok(tool, **args)
            samples = []
            for _ in range(n):
                t0 = time.perf_counter()
                await vg.ok(tool, **args)
                samples.append(time.perf_counter() - t0)
            out[name] = summary_ms(samples)
        samples = []
        for i in range(n):
            t0 = time.perf_counter()
            await vg.ok("read_note", path=reads[i % len(reads)])
            samples.append(time.perf_counter() - t0)
        out["read_note"] = summary_ms(samples)
    return out


async def main(notes: int, n: int) -> None:
    source, _ = standard_vault(notes)
    paths = sorted(p.relative_to(source).as_posix() for p in source.rglob("*.md"))
    reads = [p for p in paths if p.startswith("Projects/")][:100]
    result: dict[str, Any] = {"notes": notes, "calls": n, "decide_us": round(decisions(source, paths), 2)}
    for variant, acl in (("open", None), ("acl", WORKED)):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            shutil.copytree(source, root)
            result[variant] = await calls(root, acl, reads, n)
    result["p50_overhead_ms"] = {
        k: round(result["acl"][k]["p50_ms"] - result["open"][k]["p50_ms"], 3) for k in result["open"]
    }
    report("bench_acl", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=300)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
