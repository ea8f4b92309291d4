"""The memory guards of a bulk load: the allocator trim and the default parse-worker count."""

from __future__ import annotations

import sys

import pytest

from service import heap
from service.indexer.parsepool import default_workers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_trim_releases_freed_memory_on_glibc() -> None:
    blocks = [bytearray(4096) for _ in range(20_000)]
    del blocks
    assert heap.trim() is True
    assert heap.trim() is True  # looked up once, callable again


@pytest.mark.parametrize(("cpus", "workers"), [(1, 0), (2, 0), (3, 1), (4, 2), (5, 3), (64, 3)])
def test_no_parse_worker_on_two_cpus_and_at_most_three(cpus: int, workers: int) -> None:
    assert default_workers(cpus) == workers


def test_the_default_follows_the_usable_cpus() -> None:
    assert 0 <= default_workers() <= 3
