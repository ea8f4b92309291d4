"""The engines' knobs: the indexer (`[index]`: watcher, parse workers) and search budgets (`[search]`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.settings.base import Section


class IndexSettings(Section):
    watch: bool = Field(default=True, description="Watch vault folders for edits made by other programs.")
    debounce_ms: int = Field(default=50, ge=0, le=5000, description="Watcher debounce window.")
    watch_mode: Literal["events", "poll"] = Field(
        default="events",
        description="events: the OS reports each change (Linux's inotify), and where its watch cannot be set up"
        " (the inotify watch or instance limit reached) the vault is polled instead; poll: the vault is compared"
        " with the index every `watch_poll_s` (network file systems such as NFS, SMB or sshfs, where edits made"
        " on another machine raise no event here).",
    )
    watch_poll_s: float = Field(
        default=10.0,
        ge=1.0,
        le=3600.0,
        description="Seconds between two looks for changes while polling; longer when one look takes over a"
        " twentieth of it (a vault of 10^5 notes), so polling stays under ~5 % of a core.",
    )
    parse_workers: int | None = Field(
        default=None,
        ge=0,
        le=64,
        description="Processes that parse notes during a bulk (re)index beside the SQLite writer;"
        " 0 parses in a thread. Default: CPU count - 2, at least 1 and at most 3 (none on 1 CPU)."
        " Only loads of 4,000 notes or more use them (~60 MB of memory while they run).",
    )


SENSITIVE_TERMS = ["medication", "therapy", "diagnosis", "owe", "owed", "debt", "paid", "spent", "spend", "$"]
# Health and money only: not `relations`, the heading of every memory entity's relations section
# (docs/memory.md), which made each entity note a topic in every search.
SENSITIVE_TAGS = ["mentalhealth", "physicalhealth", "health", "finance"]


class SearchSettings(Section):
    regex_budget_ms: int = Field(default=2000, ge=10, description="Default time budget of one search_regex call.")
    regex_max_budget_ms: int = Field(default=10_000, ge=10, description="Ceiling for a caller's `budget_ms`.")
    read_budget_ms: int = Field(
        default=10_000,
        ge=100,
        description="Wall-clock time one search call's index reads may take (a prefix such as `a*` OR'ed many "
        "times ranks and expands the whole vault); past it: compute_budget_exceeded.",
    )
    sensitive_terms: list[str] = Field(
        default_factory=lambda: list(SENSITIVE_TERMS),
        description="rag_search flags a chunk as sensitive when it contains one of these words (health, money).",
    )
    sensitive_tags: list[str] = Field(
        default_factory=lambda: list(SENSITIVE_TAGS),
        description="rag_search flags a chunk as sensitive when its note has one of these tags or its heading is one.",
    )
    jsonlogic_max_ops: int = Field(
        default=2_000_000, ge=1000, description="Operations one query_jsonlogic call may evaluate (all notes)."
    )
    bases_max_steps: int = Field(
        default=5_000_000, ge=1000, description="Steps (rows, calls, list elements) one query_base call may take."
    )
    bases_max_seconds: float = Field(default=10.0, gt=0, description="Wall-clock budget of one query_base call.")
    prewarm_queries: bool = Field(
        default=False,
        description="Build each vault's Bases and Dataview images as soon as its index is ready, rather than at "
        "the first query_base / search_dql call (seconds at 10k notes). Off: a server whose agents never run "
        "those queries holds no such image in memory. Either way, an image once built is kept current.",
    )
    query_images_idle_s: float = Field(
        default=600.0,
        ge=0,
        description="Drop a vault's Bases or Dataview image when no query has read it for this many seconds "
        "(~235 MB at 100k notes for both; the next query builds it again, seconds at 100k notes). 0 keeps them.",
    )
