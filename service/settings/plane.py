"""[plane]: the consolidation plane — when its runs start and what they may change by themselves.

A run starts `interval_minutes` after the last one, or sooner once `after_changes` notes changed
since it, and never before the server has been up `after_start_minutes`; it waits for a pause in
the calls (`service.activity`) and runs one vault at a time.
Findings become action plans a person or an agent applies; only the kinds in `auto_apply` are
applied by the run itself (as journaled, undoable plans too). `FINDING_KINDS` lists every kind the
jobs report and why one cannot be applied by a run (its plan asks a human, or it has none), so an
`auto_apply` that could never take effect — a job's name for a kind, a misspelling, such a kind —
is refused at start (a test pins the table against the jobs).
"""

from __future__ import annotations

import difflib

from pydantic import Field, field_validator

from service.settings.base import Section

_HUMAN = "its plan ({}) always asks a human's confirmation; apply its findings with apply_finding"
_TO_READ = "its findings have no plan (they are to read)"
FINDING_KINDS: dict[str, str | None] = {  # kind -> why a run cannot apply it (None: it can)
    "duplicate": None,
    "near_duplicate": None,
    "duplicate_entity": _HUMAN.format("a merge ends with delete_entities"),
    "contradiction": None,
    "stale_capture": None,
    "stale_experience": _TO_READ,
    "orphaned_observation": _TO_READ,
    "invalid_frontmatter": _TO_READ,
    "broken_link": _HUMAN.format("rewrite_links"),
    "orphan": _TO_READ,
    "tag_variant": _HUMAN.format("rename_tag"),
    "alias_collision": _TO_READ,
    "unlinked_mention": _TO_READ,
    "topic_map": None,
    "digest": None,
    "summary": None,
}


class PlaneSettings(Section):
    enabled: bool = Field(
        default=True, description="Run consolidation in the background (run_consolidation works either way)."
    )
    interval_minutes: int = Field(default=240, ge=1, le=7 * 24 * 60, description="Minutes between two runs.")
    after_changes: int = Field(
        default=200, ge=1, le=1_000_000, description="Start a run sooner once this many notes changed since the last."
    )
    after_start_minutes: int = Field(
        default=5,
        ge=0,
        le=24 * 60,
        description="A run the schedule starts waits until the server has been up this long (a short "
        "session, such as a stdio server spawned for one task, does not pay for a run it would not finish).",
    )
    stale_days: int = Field(
        default=14, ge=1, le=3650, description="Captures unfiled and experiences unpromoted this long are stale."
    )
    auto_apply: list[str] = Field(
        default_factory=list,
        description="Finding kinds a run applies by itself as journaled, undoable plans (e.g. 'duplicate'); "
        "a kind whose plan asks a human, or that has none, is refused.",
    )
    max_findings: int = Field(default=500, ge=1, le=100_000, description="Findings one job reports per run, at most.")

    @field_validator("auto_apply")
    @classmethod
    def _check_auto_apply(cls, value: list[str]) -> list[str]:
        able = [k for k, why in FINDING_KINDS.items() if why is None]
        problems = []
        for kind in value:
            if kind not in FINDING_KINDS:
                near = difflib.get_close_matches(kind, FINDING_KINDS, n=1, cutoff=0.6)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                problems.append(f"{kind!r} is not a finding kind{hint}")
            elif FINDING_KINDS[kind] is not None:
                problems.append(f"{kind!r} cannot be applied by a run: {FINDING_KINDS[kind]}")
        if problems:
            raise ValueError("; ".join(problems) + f". Kinds a run can apply: {', '.join(able)}")
        return list(dict.fromkeys(value))
