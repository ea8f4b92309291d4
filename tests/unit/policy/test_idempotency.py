"""Idempotency through the dispatch chain, with real concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {"Log.md": "# Log\n"}


async def test_a_finished_call_replays_without_running_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        first = await vg.ok("append_note", path="Log", content="- one\n", idempotency_key="k1")
        again = await vg.ok("append_note", path="Log", content="- one\n", idempotency_key="k1")
        assert again == first
        assert vg.read("Log.md") == "# Log\n- one\n"
        other = await vg.ok("append_note", path="Log", content="- one\n", idempotency_key="k2")
        assert other["etag"] != first["etag"]
        assert vg.read("Log.md") == "# Log\n- one\n- one\n"


async def test_concurrent_identical_keyed_calls_run_the_handler_once(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        results = await asyncio.gather(
            *(vg.call("append_note", path="Log", content="- once\n", idempotency_key="same") for _ in range(8))
        )
        assert vg.read("Log.md") == "# Log\n- once\n"
        codes = sorted(r.error_code or "ok" for r in results)
        assert "ok" in codes and set(codes) <= {"ok", "idempotency_in_flight"}
        later = await vg.ok("append_note", path="Log", content="- once\n", idempotency_key="same")
        assert later["path"] == "Log.md" and vg.read("Log.md") == "# Log\n- once\n"


async def test_same_key_other_arguments_is_a_mismatch(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.ok("append_note", path="Log", content="a\n", idempotency_key="k")
        before = vg.snapshot()
        error = await vg.err("append_note", "idempotency_key_mismatch", path="Log", content="b\n", idempotency_key="k")
        assert error["details"]["idempotency_key"] == "k"
        await vg.err("create_note", "idempotency_key_mismatch", path="Other", content="a\n", idempotency_key="k")
        assert vg.snapshot() == before


async def test_a_failed_call_releases_its_key_and_keys_are_per_caller(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.err("append_note", "note_not_found", path="Missing", content="x", idempotency_key="f")
        await vg.ok("create_note", path="Missing", content="")
        await vg.ok("append_note", path="Missing", content="x\n", idempotency_key="f")
        assert vg.read("Missing.md") == "x\n"
        from tests.sec_vault import caller

        vg.principal = caller("read:vault write:vault")
        await vg.ok("append_note", path="Missing", content="x\n", idempotency_key="f")  # another caller
        assert vg.read("Missing.md") == "x\nx\n"


async def test_a_crashed_claim_is_reclaimed_after_the_timeout(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), idempotency={"reclaim_seconds": 60}) as vg:
        store = vg.app.services.idempotency
        claim = await store.claim("test", "main", "crash", "append_note", "h")
        assert claim.outcome == "owner"
        assert (await store.claim("test", "main", "crash", "append_note", "h")).outcome == "in_flight"
        old = time.time() - 120
        await vg.app.services.state.run_write(
            lambda c: c.execute("UPDATE idempotency_keys SET claimed_at = ? WHERE key = 'crash'", (old,))
        )
        assert (await store.claim("test", "main", "crash", "append_note", "h")).outcome == "owner"
        assert await store.purge(time.time() + 10 * 86_400) == 1


async def test_a_completed_key_is_a_fresh_call_after_its_ttl(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), idempotency={"ttl_seconds": 3600}) as vg:
        store = vg.app.services.idempotency
        now = [time.time()]
        store.clock = lambda: now[0]
        args = {"path": "Log", "content": "- entry\n", "idempotency_key": "ttl"}
        first = await vg.ok("append_note", **args)
        now[0] += 3599  # still within the TTL: replayed, nothing runs
        assert await vg.ok("append_note", **args) == first
        assert vg.read("Log.md") == "# Log\n- entry\n"
        now[0] += 2  # past the TTL: the key is forgotten, the call runs again
        fresh = await vg.ok("append_note", **args)
        assert fresh["etag"] != first["etag"] and vg.read("Log.md") == "# Log\n- entry\n- entry\n"
        assert await vg.ok("append_note", **args) == fresh  # and is replayed from then on


def test_the_issue_names_are_accepted_as_config_aliases(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from service.settings import IdempotencySettings, Settings

    monkeypatch.setenv("VAULTGATE_IDEMPOTENCY__IDEMPOTENCY_TTL_SECONDS", "7200")
    monkeypatch.setenv("VAULTGATE_IDEMPOTENCY__IDEMPOTENCY_RECLAIM_SECONDS", "90")
    monkeypatch.setenv("VAULTGATE_CONFIRMATION__ELICIT_TTL_SECONDS", "120")
    settings = Settings(vaults=[{"id": "main", "path": Path.cwd()}])
    assert (settings.idempotency.ttl_seconds, settings.idempotency.reclaim_seconds) == (7200, 90)
    assert settings.confirmation.elicit_ttl_seconds == 120
    assert IdempotencySettings(ttl_seconds=600).ttl_seconds == 600  # the short names still work


async def test_a_live_servers_claim_stays_in_flight_and_a_dead_ones_is_interrupted_at_once(
    make_vault: Callable[..., Path],
) -> None:
    """Two servers on one data folder (two owners: `flock` locks belong to an open file): the other
    server's claim is `in_flight` while it lives, whatever the clock; once its owner lock is free (a
    killed process, K2 s95) the next call with the key hears `interrupted` at once, not
    `reclaim_seconds` later, and so does every later one: the key's call is never run twice."""
    from service.policy.idempotency import IdempotencyStore
    from service.storage.owners import Owner

    async with started(make_vault(VAULT), idempotency={"reclaim_seconds": 300}) as vg:
        store = vg.app.services.idempotency
        assert store.owner is not None
        other = IdempotencyStore(
            vg.app.services.state, ttl_seconds=3600, reclaim_seconds=300, owner=Owner(store.owner.folder)
        )
        assert (await other.claim("test", "main", "k", "append_note", "h")).outcome == "owner"
        assert (await store.claim("test", "main", "k", "append_note", "h")).outcome == "in_flight"
        assert other.owner is not None
        other.owner.release()  # the process is gone: the kernel dropped its lock
        first = await store.claim("test", "main", "k", "append_note", "h")
        assert first.outcome == "interrupted" and first.claimed_at is not None
        assert (await store.claim("test", "main", "k", "append_note", "h")).outcome == "interrupted"
        assert (await store.claim("test", "main", "k2", "append_note", "h")).outcome == "owner"  # a new key runs
