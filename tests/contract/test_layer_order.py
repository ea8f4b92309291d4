"""The dispatch chain's order is SPEC §3's, pinned: a reordering must be a deliberate change here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.dispatch.chain import LAYER_ORDER
from tests.conftest import started

SPEC_ORDER = (
    "observe",  # §3.12 metrics, audit, spans: sees every outcome
    "translate",  # one error tree -> structured isError results
    "governor",  # §3.12 max_response_bytes -> overflow
    "lookup",  # §3.1 unknown/disabled tool -> not_found
    "args_hash",  # §3.2
    "validate",  # §3.3 pydantic
    "authorize",  # §3.4 scopes
    "resolve_vault",  # §3.5 (+ token vault binding)
    "acl",  # §3.6 read-only kill switch (per-path ACL in the handler)
    "precheck",  # §3.7 before anything is claimed or confirmed
    "idempotency",  # §3.8
    "throttle",  # §3.9
    "confirm",  # §3.10
    "handler",  # §3.11
)


def test_layer_order_is_the_spec_order() -> None:
    assert LAYER_ORDER == SPEC_ORDER


async def test_the_running_chain_is_built_in_that_order(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "a\n"})) as vg:
        assert tuple(layer.name for layer in vg.app.layers) == SPEC_ORDER


async def test_a_failing_precheck_claims_no_key_spends_no_bucket_and_asks_nobody(
    make_vault: Callable[..., Path],
) -> None:
    throttle = {"classes": {"delete": {"rate_per_minute": 1, "burst": 1}}}
    async with started(make_vault({"A.md": "a\n"}), throttle=throttle) as vg:
        args = {"path": "Missing", "permanent": True, "idempotency_key": "k1"}
        for _ in range(3):  # the burst is 1: a spent bucket would answer `throttled` the second time
            await vg.err("delete_note", "note_not_found", **args)
        db = vg.app.services.db
        assert await db.fetchall("SELECT * FROM idempotency_keys", ()) == []
        assert await db.fetchall("SELECT * FROM confirmation_requests", ()) == []
        # the key was never claimed: the same key serves another call, which then asks a human
        await vg.err("delete_note", "elicit_required", path="A", permanent=True, idempotency_key="k1")
        assert (vg.root / "A.md").exists()
