"""The dispatch chain's order is the documented one (docs/architecture.md), pinned: a reordering
must be a deliberate change here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.dispatch.chain import LAYER_ORDER
from tests.conftest import started

DOCUMENTED_ORDER = (
    "observe",  # metrics, audit, spans: sees every outcome
    "translate",  # one error tree -> structured isError results
    "governor",  # max_response_bytes -> overflow
    "lookup",  # unknown/disabled tool -> not_found
    "args_hash",
    "validate",  # pydantic
    "authorize",  # scopes
    "resolve_vault",  # (+ token vault binding)
    "acl",  # read-only kill switch (per-path ACL in the handler)
    "own_writes",  # read-your-writes: the caller's queued index updates land first
    "precheck",  # before anything is claimed or confirmed
    "idempotency",  # claim before execute
    "throttle",  # token buckets
    "confirm",  # a human for risky calls
    "handler",  # the tool itself
)


def test_layer_order_is_the_spec_order() -> None:
    assert LAYER_ORDER == DOCUMENTED_ORDER


async def test_the_running_chain_is_built_in_that_order(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "a\n"})) as vg:
        assert tuple(layer.name for layer in vg.app.layers) == DOCUMENTED_ORDER


async def test_a_failing_precheck_claims_no_key_spends_no_bucket_and_asks_nobody(
    make_vault: Callable[..., Path],
) -> None:
    throttle = {"classes": {"delete": {"rate_per_minute": 1, "burst": 1}}}
    async with started(make_vault({"A.md": "a\n"}), throttle=throttle) as vg:
        args = {"path": "Missing", "permanent": True, "idempotency_key": "k1"}
        for _ in range(3):  # the burst is 1: a spent bucket would answer `throttled` the second time
            await vg.err("delete_note", "note_not_found", **args)
        db = vg.app.services.state
        assert await db.fetchall("SELECT * FROM idempotency_keys", ()) == []
        assert await db.fetchall("SELECT * FROM confirmation_requests", ()) == []
        # the key was never claimed: the same key serves another call, which then asks a human
        await vg.err("delete_note", "elicit_required", path="A", permanent=True, idempotency_key="k1")
        assert (vg.root / "A.md").exists()
