"""The order in which bench_search_buckets asks its servers (tests/bench/bench_search_buckets.py):
who is asked just before a server changes its time (a call after the peer is slower), so every
server must follow every other equally often, in each bucket, and never follow itself."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tests.bench.bench_search_buckets import BUCKETS, orders


def _buckets(rounds: int = 3, per_bucket: int = 8) -> list[str]:
    return [b for b in BUCKETS for _ in range(per_bucket)] * rounds


@pytest.mark.parametrize(("n", "spread"), [(3, 1), (4, 3)])
def test_every_server_follows_every_other_about_equally_often_in_each_bucket(n: int, spread: int) -> None:
    buckets = _buckets()
    turns = orders(n, buckets)
    assert all(sorted(order) == list(range(n)) for order in turns)  # each server once a turn
    calls = [(server, bucket) for order, bucket in zip(turns, buckets, strict=True) for server in order]
    follows: dict[str | None, Counter[tuple[int, int]]] = {b: Counter() for b in (*BUCKETS, None)}
    for (before, _), (server, in_bucket) in itertools.pairwise(calls):
        assert server != before  # never twice in a row: that call would have no pause before it
        follows[in_bucket][(before, server)] += 1
        follows[None][(before, server)] += 1
    for bucket, counts in follows.items():
        assert len(counts) == n * (n - 1), bucket  # every ordered pair occurs
        assert max(counts.values()) - min(counts.values()) <= spread, (bucket, counts)


def test_two_servers_take_turns_in_one_order() -> None:
    assert set(orders(2, _buckets())) == {(0, 1)}  # never twice in a row leaves one order
