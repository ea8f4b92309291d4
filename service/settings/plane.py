"""[plane]: the consolidation plane — when its runs start and what they may change by themselves.

A run starts `interval_minutes` after the last one, or sooner once `after_changes` notes changed
since it; it waits for a pause in the calls (`service.activity`) and runs one vault at a time.
Findings become action plans a person or an agent applies; only the kinds in `auto_apply` are
applied by the run itself (as journaled, undoable plans too).
"""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class PlaneSettings(Section):
    enabled: bool = Field(
        default=True, description="Run consolidation in the background (run_consolidation works either way)."
    )
    interval_minutes: int = Field(default=240, ge=1, le=7 * 24 * 60, description="Minutes between two runs.")
    after_changes: int = Field(
        default=200, ge=1, le=1_000_000, description="Start a run sooner once this many notes changed since the last."
    )
    stale_days: int = Field(
        default=14, ge=1, le=3650, description="Captures unfiled and experiences unpromoted this long are stale."
    )
    auto_apply: list[str] = Field(
        default_factory=list,
        description="Finding kinds a run applies by itself as journaled, undoable plans (e.g. 'duplicate').",
    )
    max_findings: int = Field(default=500, ge=1, le=100_000, description="Findings one job reports per run, at most.")
