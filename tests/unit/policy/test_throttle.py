"""Token buckets with an injected clock: deterministic, no sleeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.policy.throttle import TokenBuckets
from service.settings import ThrottleSettings
from tests.conftest import started


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_refills_at_the_configured_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(ThrottleSettings(classes={"write": {"rate_per_minute": 60, "burst": 2}}), clock)
    assert buckets.take("a", "write", "v") == 0.0
    assert buckets.take("a", "write", "v") == 0.0
    assert buckets.take("a", "write", "v") == 1.0  # 1 token per second
    assert buckets.take("b", "write", "v") == 0.0  # other caller, own bucket
    assert buckets.take("a", "write", "other") == 0.0  # other vault, own bucket
    clock.now += 0.5
    assert buckets.take("a", "write", "v") == 0.5
    clock.now += 0.5
    assert buckets.take("a", "write", "v") == 0.0


async def test_throttled_calls_answer_with_retry_after_and_change_nothing(make_vault: Callable[..., Path]) -> None:
    cfg = {"classes": {"write": {"rate_per_minute": 6, "burst": 2}, "read": {"rate_per_minute": 60, "burst": 100}}}
    async with started(make_vault({"A.md": "a\n"}), throttle=cfg) as vg:
        buckets = vg.app.services.throttle
        clock = Clock()
        buckets.clock = clock
        await vg.ok("append_note", path="A", content="1\n")
        await vg.ok("append_note", path="A", content="2\n")
        before = vg.snapshot()
        error = await vg.err("append_note", "throttled", path="A", content="3\n")
        assert error["details"] == {"retry_after_seconds": 10.0, "scope_class": "write", "vault": "main"}
        assert error["retryable"] is True
        assert vg.snapshot() == before
        assert (await vg.ok("read_note", path="A"))["path"] == "A.md"  # reads have their own bucket
        clock.now += 10
        await vg.ok("append_note", path="A", content="3\n")


async def test_throttle_can_be_switched_off(make_vault: Callable[..., Path], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("VAULTGATE_THROTTLE__ENABLED", "false")
    monkeypatch.setenv("VAULTGATE_THROTTLE__CLASSES__WRITE__RATE_PER_MINUTE", "1")
    monkeypatch.setenv("VAULTGATE_THROTTLE__CLASSES__WRITE__BURST", "1")
    async with started(make_vault({"A.md": "a\n"})) as vg:
        assert vg.app.settings.throttle.classes["write"].burst == 1
        for i in range(5):
            await vg.ok("append_note", path="A", content=f"{i}\n")


def test_a_partial_class_override_keeps_the_other_field(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from service.settings import Settings

    monkeypatch.setenv("VAULTGATE_THROTTLE__CLASSES__ADMIN__BURST", "3")
    monkeypatch.setenv("VAULTGATE_THROTTLE__CLASSES__READ__RATE_PER_MINUTE", "90")
    settings = Settings(vaults=[{"id": "main", "path": Path.cwd()}])
    classes = settings.throttle.classes
    assert (classes["admin"].burst, classes["admin"].rate_per_minute) == (3, 120)  # rate: admin's default
    assert (classes["read"].rate_per_minute, classes["read"].burst) == (90, 600)  # burst: read's default
    assert (classes["write"].rate_per_minute, classes["write"].burst) == (1200, 120)
    partial = ThrottleSettings(classes={"delete": {"burst": 1}})
    assert (partial.classes["delete"].rate_per_minute, partial.classes["delete"].burst) == (300, 1)


async def test_at_most_max_concurrent_writes_run_at_once_per_vault(make_vault: Callable[..., Path]) -> None:
    import asyncio
    import threading

    async with started(make_vault({"A.md": "a\n"}), writes={"max_concurrent": 2}) as vg:
        files = vg.app.vaults["main"].files
        original = files._write_sync
        entered, release = threading.Semaphore(0), threading.Event()
        guard = threading.Lock()
        running, peak = [0], [0]

        def gated(*args: object) -> object:  # runs in a worker thread, inside the vault's write slot
            with guard:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            entered.release()
            try:
                assert release.wait(timeout=30)
                return original(*args)  # type: ignore[arg-type]  # the written file's stat
            finally:
                with guard:
                    running[0] -= 1

        files._write_sync = gated  # type: ignore[method-assign]
        cap = files._writes
        asked, all_asked = [0], asyncio.Event()

        class Counting:  # the vault's own semaphore, counting who asks for a write slot
            async def __aenter__(self) -> None:
                asked[0] += 1
                if asked[0] == 5:
                    all_asked.set()
                await cap.acquire()

            async def __aexit__(self, *exc: object) -> None:
                cap.release()

        files._writes = Counting()  # type: ignore[assignment]
        calls = [asyncio.ensure_future(vg.call("create_note", path=f"N{i}", content=f"{i}\n")) for i in range(5)]
        await asyncio.wait_for(all_asked.wait(), 60)  # every write has asked for a slot...
        for _ in range(2):
            assert await asyncio.to_thread(entered.acquire, timeout=30)
        assert running[0] == 2 and cap.locked()  # ...two hold one, three wait
        assert not entered.acquire(blocking=False)
        release.set()
        results = await asyncio.wait_for(asyncio.gather(*calls), 60)
        assert [r.error_code for r in results] == [None] * 5
        assert peak[0] == 2 and all((vg.root / f"N{i}.md").exists() for i in range(5))
