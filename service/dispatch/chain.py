"""The dispatch chain: one ordered tuple of layers, run for every tools/call on every transport.

The order docs/architecture.md draws, outermost first. Error translation and the governor wrap
the rest so that every failure of an inner layer is translated and every success is measured:

    observe        metrics for every outcome (outermost, never fails the call)
    translate      exceptions → structured tool errors (outermost)
    governor       serialize once, enforce max_response_bytes
    lookup         unknown / disabled tool → not_found
    args_hash      the call's argument hash (idempotency and confirmation key on it)
    validate       pydantic input model
    authorize      the caller holds the tool's scopes (token verified at the HTTP edge)
    resolve_vault  (+ vault binding of the token)
    acl            read-only kill switch; per-path ACL via the path guard in the handler
    own_writes     the caller's queued index updates are applied before its call reads the index
    precheck       the tool's own precheck hook (before anything is claimed or confirmed)
    idempotency    claim-before-execute, replay of finished calls
    throttle       token bucket per (caller, scope class, vault)
    confirm        human confirmation: elicit_token, client elicitation, or elicit_required
    handler        the tool itself (terminal)

`LAYER_ORDER` is pinned by a contract test; `build_layers` constructs the tuple from
collaborators the composition root built, and `compose` folds it into one callable.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.dispatch.acl_gate import AclGate
from service.dispatch.args_hash import ArgsHash
from service.dispatch.authorize import Authorize
from service.dispatch.confirm import Confirm
from service.dispatch.context import CallContext, Layer, Next, ToolResult
from service.dispatch.governor import Governor
from service.dispatch.handler import RunHandler
from service.dispatch.idempotency import Idempotency
from service.dispatch.lookup import Lookup
from service.dispatch.observe import Observe
from service.dispatch.own_writes import OwnWrites
from service.dispatch.precheck import Precheck
from service.dispatch.preview import WritePreview
from service.dispatch.resolve_vault import ResolveVault
from service.dispatch.throttle import Throttle
from service.dispatch.translate import Translate
from service.dispatch.validate import Validate
from service.services import Services
from service.tools.context import ToolContext
from service.tools.registry import Registry

LAYER_ORDER: tuple[str, ...] = (
    "observe",
    "translate",
    "governor",
    "lookup",
    "args_hash",
    "validate",
    "authorize",
    "resolve_vault",
    "acl",
    "own_writes",
    "precheck",
    "idempotency",
    "throttle",
    "confirm",
    "handler",
)


def build_layers(services: Services, registry: Registry) -> tuple[Layer, ...]:
    """The chain, each layer given only the collaborators it uses (all built by `app.py`).

    The precheck, confirm and handler layers get `context_for`, which builds the `ToolContext` a
    tool's hooks and handler run with (the one place the shared services reach tool code).
    """
    settings = services.settings

    def context_for(call: CallContext) -> ToolContext:
        return call.tool_context(services)

    layers: tuple[Layer, ...] = (
        Observe(
            services.metrics,
            services.audit,
            services.tracing,
            services.sessions,
            vault_ids=services.vaults,
            log_calls=settings.log.calls,
            call_info_ms=settings.log.call_info_ms,
        ),
        Translate(),
        Governor(settings.governor),
        Lookup(registry, services.visibility.exists),
        ArgsHash(),
        Validate(),
        Authorize(),
        ResolveVault(services.vaults, settings.default_vault_id),
        AclGate(
            services.guard.is_read_only,
            WritePreview(services.guard, context_for, services.settings.memory),
            lambda call, rel: context_for(call).can_read(rel),
        ),
        OwnWrites(),
        Precheck(context_for),
        Idempotency(services.idempotency),
        Throttle(services.throttle),
        Confirm(
            context_for,
            settings.confirmation,
            services.confirmations,
            json_response=settings.http.json_response,
            vaults=services.vaults,
        ),
        RunHandler(context_for),
    )
    names = tuple(layer.name for layer in layers)
    if names != LAYER_ORDER:
        raise RuntimeError(f"dispatch layers out of order: {names} != {LAYER_ORDER}")
    return layers


async def _end(call: CallContext) -> ToolResult:
    raise RuntimeError("the handler layer must be last and must not call next")


def compose(layers: Sequence[Layer]) -> Next:
    """Fold the layers into one callable, outermost first."""
    nxt: Next = _end
    for layer in reversed(layers):
        nxt = _bind(layer, nxt)
    return nxt


def _bind(layer: Layer, nxt: Next) -> Next:
    async def step(call: CallContext) -> ToolResult:
        return await layer(call, nxt)

    return step
