"""Token buckets per (caller, scope class, vault).

Each bucket holds up to `burst` tokens and refills at `rate_per_minute / 60` tokens per second;
a call takes one token or is refused with the seconds until one is available. The clock is
injectable (tests advance it instead of sleeping). Buckets idle long enough to be full again are
dropped, so memory stays bounded by the number of active callers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.settings import ThrottleSettings

Key = tuple[str, str, str]  # (caller, scope class, vault id)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    def __init__(self, cfg: ThrottleSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg = cfg
        self.clock = clock
        self._buckets: dict[Key, _Bucket] = {}
        self._last_sweep = clock()

    def take(self, caller: str, scope_class: str, vault_id: str) -> float:
        """Take one token; returns 0.0 on success, else seconds until a token is available."""
        limits = self.cfg.classes.get(scope_class)  # type: ignore[call-overload]
        if limits is None:
            return 0.0
        now = self.clock()
        rate = limits.rate_per_minute / 60.0
        key = (caller, scope_class, vault_id)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(float(limits.burst), now)
        else:
            bucket.tokens = min(float(limits.burst), bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            self._sweep(now)
            return 0.0
        return float((1.0 - bucket.tokens) / rate)

    def _sweep(self, now: float) -> None:
        if now - self._last_sweep < 60:
            return
        self._last_sweep = now
        for key, bucket in list(self._buckets.items()):
            limits = self.cfg.classes.get(key[1])  # type: ignore[call-overload]
            if limits is None or bucket.tokens + (now - bucket.updated) * limits.rate_per_minute / 60 >= limits.burst:
                del self._buckets[key]
