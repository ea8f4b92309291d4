"""The mixed-load benchmark's server-side latency (tests/bench/bench_mixed.py): percentiles read
from the tool-call duration histogram our /metrics exposes, from the growth between two scrapes."""

from __future__ import annotations

import math

import pytest

from service.obs.metrics import DURATION_BUCKETS, Metrics
from tests.bench.bench_mixed import histogram, histogram_quantile, server_latency


def test_quantiles_follow_prometheus_interpolation() -> None:
    # 10 observations up to 1 ms, 10 more up to 2.5 ms: the median is the top of the first bucket,
    # the 75th percentile halfway through the second.
    buckets = {0.001: 10.0, 0.0025: 20.0, float("inf"): 20.0}
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.001)
    assert histogram_quantile(0.75, buckets) == pytest.approx(0.00175)
    assert math.isnan(histogram_quantile(0.5, {0.001: 0.0, float("inf"): 0.0}))  # no calls: no figure
    assert histogram_quantile(0.99, {0.001: 1.0, float("inf"): 2.0}) == pytest.approx(0.001)  # lower bound of +Inf


def test_only_calls_between_the_scrapes_count_and_vaults_are_summed() -> None:
    metrics = Metrics()
    for _ in range(50):
        metrics.duration.labels(vault="main", tool="read_note").observe(0.2)  # before the window
    before = metrics.render().decode()
    for vault in ("main", "work"):
        for _ in range(10):
            metrics.duration.labels(vault=vault, tool="read_note").observe(0.0008)
    metrics.duration.labels(vault="main", tool="append_note").observe(0.04)
    after = metrics.render().decode()

    assert set(histogram(after)) == {"read_note", "append_note"}
    report = server_latency(before, after, {"read": ["read_note"], "write": ["append_note", "create_note"]})
    assert report["read"]["n"] == 20
    assert report["read"]["p95_ms"] <= 1000 * DURATION_BUCKETS[0]  # the 0.2 s calls before the window are gone
    assert report["write"]["n"] == 1
    assert 25 < report["write"]["p50_ms"] <= 50
