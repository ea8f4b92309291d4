"""The shared services every tool reaches through one object, built by `app.py`.

`Services` has one named, typed field per collaborator (no dict of services): mypy sees every
edge, and a tool asks for `ctx.services.index_jobs` rather than a string key. The composition
root (`service.app`) builds each collaborator once and hands this record to the dispatch layers
that build a `ToolContext`; the layers themselves receive only the narrow things they use.
Nothing here imports the tool layer: the facade gets the tool registry when it is declared.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from service.bridges.hub import Bridges
from service.embeddings.sizes import TokenSizes
from service.markdown.outline_reading import KeptReadings
from service.memory.store import EntityWrites
from service.obsidian.kept import KeptFiles
from service.types import ClientLog, NestedCall, OpenGuard, PathGuard

if TYPE_CHECKING:
    from service.indexer.jobs import IndexJobs
    from service.memory.experiences import ExperienceStore
    from service.memory.recall import MemoryRecall
    from service.obs.audit import AuditSink
    from service.obs.metrics import Metrics
    from service.obs.sessions import SessionTraces
    from service.obs.tracing import Tracing
    from service.ocr.component import Ocr
    from service.plane.plane import Plane
    from service.plans.runs import PlanRuns
    from service.policy.confirmations import Confirmations
    from service.policy.idempotency import IdempotencyStore
    from service.policy.throttle import TokenBuckets
    from service.policy.visibility import Visibility
    from service.rerank.protocol import Reranker
    from service.semantic.engine import SemanticEngine
    from service.settings import Settings, VaultConfig
    from service.storage.db import Database
    from service.vault.commit import StepHook
    from service.vault.vault import Vault


@dataclass
class Services:
    settings: Settings
    vaults: dict[str, Vault]  # a live view: `add_vault` extends it
    db: Database  # the index (cache folder: rebuildable from the vault)
    state: Database  # audit log, idempotency, confirmations, sessions (data folder: kept)
    metrics: Metrics
    audit: AuditSink
    tracing: Tracing
    sessions: SessionTraces
    visibility: Visibility
    idempotency: IdempotencyStore
    confirmations: Confirmations
    throttle: TokenBuckets
    index_jobs: IndexJobs
    plans: PlanRuns  # action plan runs, their journal and macros (state database)
    client_logs: ClientLog
    dispatch: NestedCall  # the whole chain again, for a tool that runs another (the facade)
    add_vault: Callable[[VaultConfig], Awaitable[None]]  # reload_vault(apply=true)
    guard: PathGuard = field(default_factory=OpenGuard)
    step_hook: StepHook | None = None  # tests only: hold a long change at a known step
    semantic: SemanticEngine | None = None  # chunks, embeddings, vector search ([embeddings])
    rerank: Reranker | None = None  # reorders the answer tools' top candidates ([rerank]; off by default)
    experiences: ExperienceStore | None = None  # experiential.db (data folder): agents' low-trust notes
    recall: MemoryRecall | None = None  # memory observations found by meaning and words
    plane: Plane | None = None  # the consolidation plane (its runs and findings)
    ocr: Ocr | None = None  # text in images and PDFs: the engine, its cache and ocr_bulk's jobs ([ocr])
    bridges: Bridges = field(default_factory=lambda: Bridges(()))  # Local REST API clients ([vaults.bridge])
    outlines: KeptReadings = field(default_factory=KeptReadings)  # get_outline's readings kept for next pages
    settings_files: KeptFiles = field(default_factory=KeptFiles)  # .obsidian/*.json parsed, for next pages
    token_sizes: TokenSizes = field(default_factory=TokenSizes)  # context_for_query's passage sizes (bounded)
    memory_writes: EntityWrites = field(default_factory=EntityWrites)  # entity notes' locks, group commits, names
    started_at: float = field(default_factory=time.time)
