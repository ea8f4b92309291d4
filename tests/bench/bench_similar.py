"""Benchmark: add_observations' near-duplicate check (`add_to`, in process, no server) at the size
of T1 s63 #5: 1,000 observations of ~3,000 characters (500 words from a 3,000-word vocabulary)
into an entity holding `--had` such observations. Prints JSON: seconds per round and the
number of similar_existing found. Run from the tree to measure (PYTHONPATH=that tree)."""

from __future__ import annotations

import argparse
import json
import random
import time

from service.memory.model import Entity, Observation
from service.tools.memory.adding import add_to


def texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    return [" ".join(rng.choice(words) for _ in range(500))[:3000] for _ in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--had", type=int, default=1)
    parser.add_argument("--add", type=int, default=1000)
    args = parser.parse_args()
    had = [Observation(t, None, f"m-{i}", {}) for i, t in enumerate(texts(2, args.had))]
    new = texts(1, args.add)
    entity = Entity("Big", "t", list(had))
    started = time.perf_counter()
    _, _, similar = add_to(entity, new, None, {})
    took = time.perf_counter() - started
    print(json.dumps({"had": args.had, "added": args.add, "seconds": round(took, 3), "similar": len(similar)}))


if __name__ == "__main__":
    main()
