"""Composition root: the only place objects are built and wired.

`VaultgateApp` owns the settings, the database, the served vaults, the tool registry, the
dispatch chain and the SDK server; every long-lived object is built here, once, and handed to
the objects that use it as a typed constructor argument (`Services` for the tools). It runs over
stdio (`run_stdio()`) or behind the HTTP tier (`service.http.asgi.http_app`, a Starlette app
whose lifespan starts and stops everything). Components with a
life of their own (index runners, watchers, background tasks) implement `Component` and are
started in order and stopped in reverse.
"""

from __future__ import annotations

import contextlib
import logging
import time
import warnings
from collections.abc import AsyncIterator
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Protocol

from service import budget, heap, malloc
from service._version import VERSION  # a constant: no package-metadata scan at start
from service.activity import Activity
from service.bridges.hub import Bridges
from service.collector import Collector
from service.dispatch.chain import build_layers
from service.dispatch.context import ToolResult
from service.dispatch.entry import Dispatcher
from service.embeddings.sizes import TokenSizes
from service.errors import VaultgateError
from service.indexer.jobs import IndexJobs
from service.indexer.runner import VaultIndexer, indexer_of
from service.markdown.outline_reading import KeptReadings
from service.memory.experiences import ExperienceStore
from service.memory.recall import MemoryRecall
from service.obs.audit import AuditSink
from service.obs.maintenance import Maintenance
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
from service.protocol.client_log import ClientLogs
from service.protocol.stdio_front import StdioFront
from service.rerank.http import build_reranker
from service.security.acl import AclGuard
from service.semantic.engine import SemanticEngine
from service.services import Services
from service.settings import Settings, VaultConfig, config_warnings
from service.settings.auth import auth_line
from service.storage.db import Database
from service.storage.migrate import migrate
from service.storage.relocate import hidden_cache_folders, own_folders, reuse_legacy_index
from service.storage.schema_cache import ToolSchemaCache
from service.storage.tool_index import SHIPPED as SHIPPED_INDEX
from service.tools.query_warmup import QueryWarmup
from service.tools.registry import build_registry
from service.tools.sensitive import guard_for
from service.types import Principal, principal_of_scope
from service.vault.commit import StepHook
from service.vault.vault import Vault

if TYPE_CHECKING:  # imported when the server is first used (`VaultgateApp.server`)
    from mcp.server.lowlevel.server import Server

log = logging.getLogger("vaultgate")
EARLY_CALLS_S = 2.0  # a stdio start loads the SDK's server once its first calls paused, or after this


class Component(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class VaultgateApp:
    def __init__(self, settings: Settings, *, step_hook: StepHook | None = None, owns_process: bool = False) -> None:
        """`step_hook`: tests only, awaited at each step of a long change (`service.vault.commit`).
        `owns_process`: the app is the process (`vaultgate serve` / `stdio`), so it may set the
        interpreter's garbage collector for itself (`service.collector`)."""
        self.settings = settings
        self.version = VERSION
        self.limits = budget.outside(settings.limits)  # its own, beside another app's (`budget.within`)
        if owns_process:
            budget.configure(settings.limits)  # and for code no app runs (the app is the process)
        cache_dir = settings.cache_dir()
        data_dir = settings.data_dir()
        reuse_legacy_index(settings.legacy_cache_dir(), cache_dir, data_dir, explicit=settings.storage.cache_dir)
        self.own_folders = own_folders(settings)
        extra_hidden = hidden_cache_folders(settings, self.own_folders)
        self.vaults = {c.id: Vault.open(c, settings.writes, extra_hidden, settings.limits) for c in settings.vaults}
        self.db = Database(cache_dir / "cache.db", readers=settings.storage.readers)
        # What cannot be rebuilt from the vault lives in the data folder, in its own database.
        self.state = Database(data_dir / "state.db", readers=1, writer_cache_kib=2000, reader_cache_kib=1000)
        self.visibility = Visibility(settings.tool_visibility, settings.tool_facade)
        self.registry = build_registry(cache_dir, SHIPPED_INDEX, self.visibility.exists)  # lazy: its docstring
        self.guard = AclGuard(settings)
        self.metrics = Metrics()
        spool_dir = settings.events.spool_dir or data_dir / "events"
        self.audit = AuditSink(self.state, settings.audit, settings.events, spool_dir, self.metrics)
        self.tracing = Tracing(settings.otel)
        self.sessions = SessionTraces(self.state, self.metrics, {v.id: v.paths.root for v in self.vaults.values()})
        self.plans = PlanRuns(self.state, self.vaults, settings.plans)
        self.idempotency = IdempotencyStore(
            self.state,
            ttl_seconds=settings.idempotency.ttl_seconds,
            reclaim_seconds=settings.idempotency.reclaim_seconds,
            owner=self.plans.journal.owner,  # a claim names this process: a killed one's is taken over
        )
        self.confirmations = Confirmations(self.state, settings.confirmation.elicit_ttl_seconds)
        self.throttle = TokenBuckets(settings.throttle)
        self.client_logs = ClientLogs(json_response=settings.http.json_response)
        self.index_jobs = IndexJobs(self.db)
        self.index_jobs.on_change = self.client_logs.job_changed
        self.activity = Activity()  # calls running: background work that can wait gives way to them
        self.semantic = SemanticEngine(settings.embeddings, self.db, partial(guard_for, settings), self.activity)
        self.experiences = ExperienceStore(data_dir)  # its own file and migration chain
        self.recall = MemoryRecall(self.db, settings.memory, self.semantic.embedder_if_on)
        self.services = Services(
            settings=settings,
            vaults=self.vaults,
            db=self.db,
            state=self.state,
            metrics=self.metrics,
            audit=self.audit,
            tracing=self.tracing,
            sessions=self.sessions,
            visibility=self.visibility,
            idempotency=self.idempotency,
            confirmations=self.confirmations,
            throttle=self.throttle,
            index_jobs=self.index_jobs,
            plans=self.plans,
            client_logs=self.client_logs,
            dispatch=self._nested_call,
            add_vault=self.add_vault,  # reload_vault(apply=true)
            guard=self.guard,
            step_hook=step_hook,
            semantic=self.semantic,
            rerank=build_reranker(settings.rerank),
            experiences=self.experiences,
            recall=self.recall,
            bridges=Bridges(settings.vaults),
            outlines=KeptReadings(max_readings=4, max_items=200_000),  # a few long outlines' next pages
            token_sizes=TokenSizes(max_texts=50_000),  # context_for_query's passage sizes: a few MB at most
        )
        self.layers = build_layers(self.services, self.registry)
        self.dispatcher = Dispatcher(
            self.layers,
            self.registry,
            principal_of=self._principal_of,
            advertised=self.visibility.advertised,
            client_logs=self.client_logs,
            schemas=ToolSchemaCache(self.registry, cache_dir).of,  # fast first tools/list
            activity=self.activity,
            limits=settings.limits,
        )
        # The experiential store opens first: its file and migrations are ready before the index
        # starts, so opening it never lets index-ready work run ahead of a start that is not over
        self.components: list[Component] = [self.experiences]
        self.components += [self._indexer(vault) for vault in self.vaults.values()]
        if self.semantic.enabled:  # after the indexers: the jobs stop before them, the engine after the jobs
            self.components += [self.semantic, *(self.semantic.job(vault) for vault in self.vaults.values())]
        self.maintenance = Maintenance(
            settings,
            self.state,
            self.vaults,
            metrics=self.metrics,
            confirmations=self.confirmations,
            idempotency=self.idempotency,
            audit=self.audit,
            spool_dir=spool_dir,
        )
        # Bases / Dataview images: kept current once built (at the first query, or when the index is ready)
        self.warmup = QueryWarmup(
            self.vaults,
            self.db,
            prewarm=settings.search.prewarm_queries,
            idle_s=settings.search.query_images_idle_s,
            guards=lambda vault: guard_for(self.services.settings, vault),
            activity=self.activity,
            catalog=self.registry,  # the notes tools imported ahead of the first write
        )
        self.ocr = self.services.ocr = Ocr(settings.ocr, self.db, self.activity)  # ocr_attachment, ocr_bulk
        self.plane = self.services.plane = Plane(  # a finding's claim belongs to the server, as its plan runs
            self.vaults, self.db, self.state, settings, self.recall, self.experiences, self.activity, self._nested_call,
            owner=self.plans.journal.owner,
        )  # fmt: skip
        self.components += [self.warmup, self.recall, self.index_jobs, self.audit, self.sessions, self.maintenance]
        self.components += [self.plans, self.plane, self.ocr]  # consolidation runs; ocr_bulk's jobs, the OCR worker
        releases = [d.release_memory for d in (self.db, self.state, self.experiences.db, self.services.settings_files)]
        self.components += [heap.HeapTrimmer(release=releases), self.services.bridges]  # bridges probe in background
        if owns_process:
            indexers = [c for c in self.components if isinstance(c, VaultIndexer)]
            self.components.append(Collector(indexers, self.activity))
        self._started = False
        self.started_at: float | None = None

    async def _nested_call(self, tool: str, arguments: dict[str, Any] | None, **options: Any) -> ToolResult:
        """A tool running another through the chain (`services.dispatch`, the facade); the
        dispatcher is built after `Services`, so this forwards to it."""
        return await self.dispatcher.call(tool, arguments, **options)

    # -- life cycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Should a step fail (a full or unwritable disk), what it opened is closed before the error
        is raised: an open database's threads would otherwise keep the process from exiting."""
        if self._started:
            return
        t0 = time.perf_counter()
        malloc.limit_arenas()  # set already by `vaultgate` (service/malloc.py); for an app run otherwise
        started: list[Component] = []
        try:
            await self.db.open()
            await self.state.open()
            for db in (self.db, self.state):
                if applied := await migrate(db):
                    log.info("applied migrations %s to %s", applied, db.path.name)
            await self._record_vaults()
            with budget.within(self.limits):  # the tasks and threads the components start hold the app's [limits]
                for component in self.components:
                    started.append(component)  # stopped too should its own start fail halfway
                    await component.start()
        except BaseException:
            await self._shut_down(started)
            raise
        self._started = True
        self.started_at = time.time()
        for warning in config_warnings(self.settings):
            log.warning("config: %s", warning)
        log.info("started in %.0f ms", (time.perf_counter() - t0) * 1000)
        log.info("auth: %s", auth_line(self.settings.auth))

    async def stop(self) -> None:
        if self._started:
            await self._shut_down(self.components)
            self._started = False

    async def _shut_down(self, started: list[Component]) -> None:
        for component in reversed(started):
            try:
                await component.stop()
            except Exception:
                log.exception("stopping %s failed", component.name)
        self.tracing.shutdown()
        await self.db.close()
        await self.state.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[VaultgateApp]:
        await self.start()
        try:
            yield self
        finally:
            await self.stop()

    async def add_vault(self, cfg: VaultConfig) -> None:
        """Serve one more vault without a restart (what `reload_vault` applies: additions only). The
        ACL guard is rebuilt from the extended settings, so the new vault gets its own `[acl]` block
        rather than the root one; its indexer runs like the others and is stopped with them."""
        if cfg.id in self.vaults:
            raise ValueError(f"vault {cfg.id!r} is already served")
        self.settings.vaults.append(cfg)
        self.own_folders = own_folders(self.settings)
        hidden = hidden_cache_folders(self.settings, self.own_folders)
        vault = Vault.open(cfg, self.settings.writes, hidden, self.settings.limits)
        self.guard.reload(self.settings)
        self.vaults[cfg.id] = vault
        if "server" in self.__dict__:
            self.resources.watch(vault)  # the MCP surfaces were built: their subscribers hear of it too
        self.sessions.roots[cfg.id] = vault.paths.root
        indexer = self._indexer(vault)
        self.components.append(indexer)
        job = self.semantic.job(vault) if self.semantic.enabled else None
        if job is not None:
            self.components.append(job)
        if self._started:
            await self._record_vaults()
            await indexer.start()
            if job is not None:
                await job.start()
            self.warmup.follow_new()

    def _indexer(self, vault: Vault) -> VaultIndexer:
        return VaultIndexer(vault, self.db, index=self.settings.index, ignore=self.own_folders, activity=self.activity)

    async def _record_vaults(self) -> None:
        now = time.time()
        async with self.db.transaction() as conn:
            for vault in self.vaults.values():
                await conn.execute(
                    "INSERT INTO vaults(vault_id, root, name, first_seen, last_seen) VALUES (?,?,?,?,?)"
                    " ON CONFLICT(vault_id) DO UPDATE SET root=excluded.root, name=excluded.name,"
                    " last_seen=excluded.last_seen",
                    (vault.id, str(vault.paths.root), vault.name, now, now),
                )

    async def refresh_gauges(self) -> None:
        """Index and storage gauges are sampled when /metrics (or get_metrics) is read."""
        now = time.time()
        for vid, vault in self.vaults.items():
            indexer = indexer_of(vault)
            if indexer is None:
                continue
            self.metrics.index_backlog.labels(vault=vid).set(indexer.backlog + indexer.queued_updates)
            self.metrics.index_notes.labels(vault=vid).set((await indexer.counts())["notes"])
            last = indexer.last_change or indexer.last_sync or now
            self.metrics.index_lag.labels(vault=vid).set(max(0.0, now - last) if indexer.backlog else 0.0)
            if indexer.watching:
                self.metrics.watch_polling.labels(vault=vid).set(1 if indexer.polling else 0)
            job = self.semantic.jobs.get(vid) if self.semantic.enabled else None
            if job is not None:
                self.metrics.embedding_failing.labels(vault=vid).set(1 if job.state == "failed" else 0)
                with contextlib.suppress(VaultgateError):  # no model to count for: the failing gauge says so
                    self.metrics.embedding_backlog.labels(vault=vid).set((await self.semantic.counts(vid)).backlog)
        size = 0
        for db in (self.db, self.state):  # the index and the records: both databases
            for suffix in ("", "-wal"):
                path = db.path.with_name(db.path.name + suffix)
                size += path.stat().st_size if path.exists() else 0
        self.metrics.db_size.set(size)

    def readiness(self) -> dict[str, Any]:
        vaults: dict[str, dict[str, Any]] = {}
        for vid, vault in self.vaults.items():
            indexer = indexer_of(vault)
            index = indexer.snapshot() if indexer is not None else {"state": "none", "ready": True}
            vaults[vid] = {"ready": self._started and bool(index["ready"]), "index": index}
        return {
            "ready": self._started and all(v["ready"] for v in vaults.values()),
            "vaults": vaults,
            "storage": self.db.backends.as_dict(),
        }

    # -- MCP ---------------------------------------------------------------------------------

    @cached_property
    def server(self) -> Server[Any]:
        """The SDK's low-level server, built at first use (a stdio start's first calls need none)."""
        from mcp.server.lowlevel.server import Server  # not `mcp.server`: its `__init__` loads MCPServer
        from mcp.shared.exceptions import MCPDeprecationWarning

        from service.protocol.access import VaultAccess
        from service.protocol.completion import Completer
        from service.protocol.macro_prompts import MacroPrompts
        from service.protocol.prompts import Prompts
        from service.protocol.resources import Resources
        from service.protocol.tasks import PlanTasks, job_kinds
        from service.protocol.walked import Walked

        access = VaultAccess(self.vaults, self.settings.default_vault_id, self.guard, self.dispatcher.principal_for)
        walked = Walked(self.guard)  # one walk of a vault for many resources/list pages and completions
        self.resources, completer = Resources(access, walked, self.settings.governor), Completer(access, walked)
        prompts = Prompts(access, MacroPrompts(access, self.plans.macros))
        with warnings.catch_warnings():
            # The logging capability is deprecated in protocol 2026-07-28 but today's clients use it.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            server: Server[Any] = Server(
                "vaultgate",
                version=self.version,
                title="vaultgate",
                description="Obsidian vaults over MCP: notes, search, graph and careful writes.",
                instructions=(
                    "Tools operate on Obsidian vaults. Paths are vault-relative with forward slashes; "
                    "'.md' is optional for notes. Pass the etag you read as expected_etag when you "
                    "modify a note so concurrent edits are never lost."
                ),
                get_tool_input_schema=self.dispatcher.input_schema,
                on_list_tools=self.dispatcher.on_list_tools,
                on_call_tool=self.dispatcher.on_call_tool,
                on_list_resources=self.resources.list,
                on_list_resource_templates=self.resources.templates,
                on_read_resource=self.resources.read,
                on_subscribe_resource=self.resources.subscribe,
                on_unsubscribe_resource=self.resources.unsubscribe,
                on_subscriptions_listen=self.resources.listen,
                on_list_prompts=prompts.list,
                on_get_prompt=prompts.get,
                on_completion=completer.complete,
                on_set_logging_level=self._set_logging_level,
            )
        # MCP tasks for plan runs and background jobs (reindex, consolidation), both eras
        PlanTasks(self.dispatcher, self.plans, job_kinds(self.services)).install(server)
        return server

    async def _set_logging_level(self, ctx: Any, params: Any) -> Any:
        """The level of log notifications this client receives (`service.protocol.client_log`).

        Never the level of vaultgate's own (stderr) log: that is the operator's `[log] level`,
        and one client's choice must not silence or flood the server's log for everyone.
        """
        import mcp_types as types

        principal, _ = self.dispatcher.principal_for(ctx)
        self.client_logs.set_level(ctx, params.level, principal)
        return types.EmptyResult()

    def _principal_of(self, ctx: Any) -> Principal:
        """The caller of an HTTP request, as the edge verified it (see `service.http.edge`)."""
        request = getattr(ctx, "request", None)
        scope = getattr(request, "scope", None)
        found = principal_of_scope(scope) if isinstance(scope, dict) else None
        if found is not None:
            return found
        if self.settings.auth.mode == "none":
            return Principal.local("http")
        return Principal(subject="anonymous", scopes=frozenset(), authenticated=False)

    async def run_stdio(self) -> None:
        async with self.running():
            await self.run_stdio_session()

    async def run_stdio_session(self, front: StdioFront | None = None) -> None:
        """One client over stdin/stdout on a started app, until stdin closes (through `front`,
        the reader that answered the client's first questions while the app loaded, if given)."""
        fast = None
        if front is not None and self.settings.protocol.fast_calls:
            from service.protocol.fast_calls import FastCalls
            from service.protocol.fast_path import FastPath

            front.fast = fast = FastCalls(FastPath(self.dispatcher, None, self.client_logs))
        if front is None:
            from mcp.server.stdio import stdio_server

            streams = stdio_server()
        else:  # the reads the front answered before the app first run through its chain
            streams = await front.built(self)
        async with streams as (read, write):
            if fast is not None:  # the plain calls asked meanwhile first, then the SDK's server (~200 ms of imports)
                await fast.hand_over(lambda: self.server, EARLY_CALLS_S)
            with budget.within(self.limits):  # a resource read, a prompt: past the dispatcher, the app's [limits] too
                await self.server.run(read, write, self.server.create_initialization_options())
