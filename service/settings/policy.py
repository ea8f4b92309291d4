"""The dispatch policies' settings: the response governor, idempotency keys, throttling,
human confirmation, and which tools callers see (visibility, facade mode)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator

from service.settings.base import Section
from service.types import ScopeClass


class GovernorSettings(Section):
    max_response_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="Largest serialized tool result; bigger → `overflow`."
    )


class IdempotencySettings(Section):
    # `idempotency_ttl_seconds` / `idempotency_reclaim_seconds` (the names) are accepted too.
    ttl_seconds: int = Field(
        default=86_400,
        ge=60,
        description="How long a completed key replays its result.",
        validation_alias=AliasChoices("ttl_seconds", "idempotency_ttl_seconds"),
    )
    reclaim_seconds: int = Field(
        default=300,
        ge=1,
        description="An in-flight claim older than this is treated as crashed and re-run.",
        validation_alias=AliasChoices("reclaim_seconds", "idempotency_reclaim_seconds"),
    )


class ThrottleClass(Section):
    rate_per_minute: float = Field(default=60, gt=0, description="Sustained calls per minute.")
    burst: int = Field(default=10, ge=1, description="Calls allowed at once before the rate applies.")


ScopeClassName = ScopeClass  # the one scope-class list lives in service.types


def _default_classes() -> dict[ScopeClassName, ThrottleClass]:
    return {
        # Generous for agents working normally (a read-heavy agent does a few hundred reads a
        # minute); the point is stopping runaway loops, not metering.
        "read": ThrottleClass(rate_per_minute=6000, burst=600),
        "write": ThrottleClass(rate_per_minute=1200, burst=120),
        "delete": ThrottleClass(rate_per_minute=300, burst=30),
        "bulk": ThrottleClass(rate_per_minute=60, burst=10),
        "execute": ThrottleClass(rate_per_minute=60, burst=10),
        "admin": ThrottleClass(rate_per_minute=120, burst=20),
    }


class ThrottleSettings(Section):
    enabled: bool = Field(default=True, description="Token buckets per (caller, scope class, vault).")
    classes: dict[ScopeClassName, ThrottleClass] = Field(
        default_factory=_default_classes, description="Rate and burst per scope class."
    )

    @field_validator("classes", mode="before")
    @classmethod
    def _fill(cls, value: Any) -> Any:
        """Merge per field: `classes.admin.burst = 3` keeps admin's default rate_per_minute."""
        if not isinstance(value, dict):
            return value
        merged: dict[Any, Any] = {name: spec.model_dump() for name, spec in _default_classes().items()}
        for name, given in value.items():
            if isinstance(given, ThrottleClass):
                given = given.model_dump(exclude_unset=True)
            if isinstance(given, dict) and isinstance(merged.get(name), dict):
                merged[name] = {**merged[name], **given}
            else:
                merged[name] = given
        return merged


class ConfirmationSettings(Section):
    enabled: bool = Field(
        default=True,
        description="Apply the floors and tools added below; false ignores them. Built-in floors, destructive "
        "tools and the tools' own conditions always need a human.",
    )
    elicit_ttl_seconds: int = Field(default=300, ge=10, le=86_400, description="Lifetime of a confirmation token.")
    scope_floors: list[str] = Field(
        default_factory=list,
        description="Extra scopes whose tools always need confirmation (execute:command and execute:plugin always do).",
    )
    tools: list[str] = Field(default_factory=list, description="Extra tools that always need confirmation.")
    use_elicitation: bool = Field(
        default=True, description="Ask through the client (MCP elicitation) when it supports it."
    )
    allow_local_http_confirm: bool = Field(
        default=False,
        description="Under auth.mode = 'none', let loopback peers use POST /admin/confirm (any local process "
        "could then approve its own calls); off: use `vaultgate confirm` or client elicitation.",
    )


class ToolVisibilitySettings(Section):
    """Which tools exist for callers. Entries match a tool name, its domain or one of its tags."""

    allowed: list[str] | None = Field(
        default=None, description="When set, only matching tools exist; every other tool is disabled."
    )
    hidden: list[str] = Field(default_factory=list, description="Not advertised in tools/list, still callable.")
    disabled: list[str] = Field(
        default_factory=list, description="Not advertised and not callable: indistinguishable from unknown tools."
    )
    require_read_only: bool = Field(default=False, description="Advertise only tools that change nothing.")


class ToolFacadeSettings(Section):
    mode: Literal["lean", "flat", "domain", "triad"] = Field(
        default="lean",
        description="What tools/list advertises: the everyday tools plus find/describe/call_capability for the "
        "rest (lean), every tool (flat), one meta-tool per domain (domain), or find/describe/call_capability "
        "(triad). Every tool stays callable by name in every mode.",
    )
