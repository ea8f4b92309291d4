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


async def test_precheck_runs_before_idempotency_and_confirmation(make_vault: Callable[..., Path]) -> None:
    order = list(SPEC_ORDER)
    assert order.index("precheck") < order.index("idempotency") < order.index("throttle") < order.index("confirm")
    assert order.index("authorize") < order.index("resolve_vault") < order.index("acl")
