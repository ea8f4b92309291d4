"""Shared fixtures: vaults written into tmp_path, a started app driven through the full chain,
and a real uvicorn server for end-to-end tests.

- `make_vault(files)` writes a vault (dict of rel path -> text) and returns its folder.
- `vg` is a started `Harness` on a small default vault: `await vg.ok(tool, **args)` runs the
  whole dispatch chain and returns structured content (asserting success), `await vg.err(tool,
  code, **args)` asserts a tool error with that code and returns its payload.
- `e2e_server` starts `vaultgate` over HTTP on 127.0.0.1:<free port> and yields (url, harness).
- `mcp_client(url, mode)` opens the SDK's Streamable HTTP client.
- `@pytest.mark.covers(tool, outcome)` declares that a test drives `tool` to "success" or
  "failure"; `_tool_outcomes` records the calls that reach `Dispatcher.call` while such a test
  runs and the test fails if a declared outcome never happened (tests/contract/test_tool_coverage.py
  checks that every tool has both).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import sqlite3
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import mcp.client.stdio as stdio_client_module
import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

import service._deferred_models  # noqa: F401 - as the command line does: before any model class
from service.app import VaultgateApp
from service.dispatch.context import ToolResult
from service.dispatch.entry import Dispatcher
from service.indexer.runner import VaultIndexer, indexer_of
from service.memory.experiences import experiential_migrations
from service.serve import serving
from service.settings import Settings, load_settings
from service.storage.db import Database
from service.storage.migrate import migrate
from service.types import Principal
from tests import model_share

DEFAULT_VAULT: dict[str, str] = {
    "Welcome.md": (
        "---\ntags: [start]\n---\n# Welcome\n\nHello from the sample vault. #intro\n\nSee [[Projects/Plan]].\n"
    ),
    "Projects/Plan.md": (
        "---\nstatus: active\npriority: 2\n---\n# Plan\n\n## Goals\n\nShip it. ^goal-1\n\n"
        "### Details\n\nMore.\n\n## Risks\n\nNone yet.\n"
    ),
    "Projects/Notes/Idea.md": "# Idea\n\nA small idea linking [[Welcome]].\n",
    "Daily/2024-01-01.md": "# 2024-01-01\n\n- [ ] write tests 📅 2024-01-02\n",
    ".obsidian/app.json": "{}\n",
}


# CI runs 4 workers on 2 cores beside other work: Hypothesis's timed checks (a per-example deadline,
# "input generation is slow") fail on the machine's load, not on the code; a test's own @settings
# still sets its example counts. Examples are drawn from a fixed seed per test, so a run's verdict
# is the same on every machine; VAULTGATE_HYPOTHESIS_EXPLORE=1 draws fresh ones (a failure found
# that way is kept as an @example).
hypothesis_settings.register_profile(
    "vaultgate",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("VAULTGATE_HYPOTHESIS_EXPLORE") != "1",
)
hypothesis_settings.load_profile("vaultgate")


OUTCOMES = ("success", "failure")
_SEEN = pytest.StashKey[set[tuple[str, str]]]()


def declared_outcomes(item: pytest.Item) -> set[tuple[str, str]]:
    """The (tool, outcome) pairs a test's `covers` marks declare (function, class and module)."""
    declared: set[tuple[str, str]] = set()
    for mark in item.iter_markers("covers"):
        if len(mark.args) != 2 or mark.kwargs or mark.args[1] not in OUTCOMES:
            pytest.fail(f"covers takes (tool, outcome) with outcome in {OUTCOMES}, got {mark.args} {mark.kwargs}")
        declared.add((mark.args[0], mark.args[1]))
    return declared


@pytest.fixture(autouse=True)
def _tool_outcomes(request: pytest.FixtureRequest) -> Iterator[None]:
    """Record every call that reaches the dispatch chain while a `covers`-marked test runs.

    `Dispatcher.call` is where every path meets: the `vg` harness, both transports of the
    in-process servers (`e2e_server`, `serving`) and the facade's nested calls. Tests without the
    marker are not wrapped at all. The check runs in `pytest_runtest_call`, right after the body,
    so a declared outcome that never happened fails the test itself (not its teardown).
    """
    if not declared_outcomes(request.node):
        yield
        return
    seen: set[tuple[str, str]] = set()
    request.node.stash[_SEEN] = seen
    original = Dispatcher.call

    async def recording(self: Dispatcher, tool: str, arguments: dict[str, Any] | None, **kwargs: Any) -> ToolResult:
        result = await original(self, tool, arguments, **kwargs)
        seen.add((tool, "failure" if result.is_error else "success"))
        return result

    Dispatcher.call = recording  # type: ignore[method-assign]
    try:
        yield
    finally:
        Dispatcher.call = original  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After a passing body: every outcome the test's `covers` marks declare was really seen."""
    yield
    seen = item.stash.get(_SEEN, None)
    if seen is None:
        return
    missing = sorted(declared_outcomes(item) - seen)
    if missing:
        observed = ", ".join(f"{t}:{o}" for t, o in sorted(seen)) or "no tool call"
        wanted = ", ".join(f"{t}:{o}" for t, o in missing)
        pytest.fail(f"covers declares {wanted}, but the test never produced it (seen: {observed})", pytrace=False)


def pytest_configure(config: pytest.Config) -> None:
    model_share.install()


BASETEMPS: set[Path] = set()  # pytest's base temp folders: every test's tmp_path, the xdg homes and models


@pytest.fixture(autouse=True)
def _xdg_homes(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The platform cache and data folders (the index and state.db by default) point at a fresh
    temp folder beside — not inside — each test's tmp_path: no test touches the real home, and
    vault snapshots do not see the databases. Subprocesses inherit the variables. The built-in
    model's derived int8 file is made once per test run (a models folder the run's xdist workers
    share, where they take turns to derive it: tests/model_share.py)."""
    base = tmp_path_factory.getbasetemp()
    BASETEMPS.add(base)
    homes = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(homes / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(homes / "data"))
    # An xdist worker's base temp is popen-gwN inside the run's: the run's folder holds the models.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    monkeypatch.setenv("VAULTGATE_MODEL_CACHE", str(shared / "models"))
    # The SDK's stdio client passes a server only a few variables (HOME, PATH, …) unless a test
    # gives `env`: these three must reach it too, or its index lands in the real ~/.cache.
    # `VAULTGATE_PROTOCOL__FAST_CALLS=false` runs the suite with every call through the SDK.
    inherited = [*stdio_client_module.DEFAULT_INHERITED_ENV_VARS, "XDG_CACHE_HOME", "XDG_DATA_HOME"]
    inherited.append("VAULTGATE_PROTOCOL__FAST_CALLS")
    monkeypatch.setattr(stdio_client_module, "DEFAULT_INHERITED_ENV_VARS", [*inherited, "VAULTGATE_MODEL_CACHE"])
    yield homes


class MigratedDatabases:
    """cache.db, state.db and experiential.db as a first start leaves them after its migrations,
    made once per test session by the real `Database` and `migrate` (built when first needed).

    Applying the ~31 migrations to each of the three fresh databases of an app start cost ~0.2 s
    of every start on the 2-core CI machine (a quarter of a typical test), thousands of times a
    run. `seed` copies them in place of a first start's empty files; the start then runs the real
    migration path, which finds nothing left to apply. Only a first start is seeded — every
    database file missing and every folder makeable — so a test that brings its own (an older
    schema, a start that fails on its data folder) meets exactly what it set up; the fresh-file
    path itself runs here, in tests/contract/test_migrations.py and in every subprocess server."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._built = False
        self.copies = 0  # the starts seeded so far

    def _build(self) -> None:
        async def migrated(path: Path, chain: Path | None) -> None:
            db = Database(path, readers=1)
            await db.open()
            try:
                await migrate(db, chain)
            finally:
                await db.close()

        async def build() -> None:
            await migrated(self.folder / "main.db", None)
            await migrated(self.folder / "experiential.db", experiential_migrations())

        # in a thread of its own: the caller runs inside the test's event loop
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, build()).result()
        assert sorted(p.name for p in self.folder.iterdir()) == ["experiential.db", "main.db"]  # no WAL left
        self._built = True

    def seed(self, app: VaultgateApp) -> None:
        targets = {app.db.path: "main.db", app.state.path: "main.db", app.experiences.path: "experiential.db"}
        if any(path.exists() for path in targets):
            return
        try:
            for path in targets:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            return  # the start meets the same folder and fails as it would
        if not self._built:
            self._build()
        for path, template in targets.items():
            shutil.copyfile(self.folder / template, path)
        self.copies += 1


UNSEEDED_START = VaultgateApp.start  # the service's own start (tests/unit/storage/test_seeded_first_starts.py)


@pytest.fixture(scope="session")
def _migrated_databases(tmp_path_factory: pytest.TempPathFactory) -> MigratedDatabases:
    return MigratedDatabases(tmp_path_factory.mktemp("migrated"))


@pytest.fixture(autouse=True)
def _first_starts_seeded(_migrated_databases: MigratedDatabases, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every in-process app's first start gets the migrated databases (`MigratedDatabases`)."""

    async def seeded_start(self: VaultgateApp) -> None:
        if not self._started:
            _migrated_databases.seed(self)
        await UNSEEDED_START(self)

    monkeypatch.setattr(VaultgateApp, "start", seeded_start)


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


@pytest.fixture
def make_vault(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(1000))

    def make(files: dict[str, str | bytes] | None = None, name: str | None = None) -> Path:
        root = tmp_path / (name or f"vault{next(counter)}")
        root.mkdir(parents=True)
        write_files(root, dict(DEFAULT_VAULT if files is None else files))
        return root

    return make


def _churns(rel: tuple[str, ...]) -> bool:
    """Files in the cache folder that change by design: the SQLite index (and its journal), the
    append-only event log and the tool-schema cache (written after the first tools/list)."""
    if ".vaultgate" not in rel:
        return False
    inside = rel[rel.index(".vaultgate") + 1 :]
    return ".db" in rel[-1] or "tool-schemas.json" in rel[-1] or (bool(inside) and inside[0] == "events")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file, folder and symlink under `root`, for 'nothing changed on disk' assertions.
    Folders appear as 'rel/' -> b'' (an empty folder left behind is a change too); a cache folder
    inside counts too, except its database and event log (see `_churns`) and its sub-folders."""
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_symlink():
            out[rel.as_posix()] = f"-> {os.readlink(p)}".encode()
        elif p.is_file():
            if not _churns(rel.parts):
                out[rel.as_posix()] = p.read_bytes()
        elif p.is_dir() and ".vaultgate" not in rel.parts[:-1]:
            out[rel.as_posix() + "/"] = b""
    return out


class Harness:
    """A started app; calls go through the full dispatch chain in-process."""

    def __init__(self, app: VaultgateApp, root: Path) -> None:
        self.app = app
        self.root = root
        self.principal = Principal.local("test")

    async def call(self, tool: str, /, **args: Any) -> ToolResult:
        return await self.app.dispatcher.call(tool, args, principal=self.principal)

    async def ok(self, tool: str, /, **args: Any) -> dict[str, Any]:
        result = await self.call(tool, **args)
        assert not result.is_error, result.structured
        assert result.structured is not None
        return result.structured

    async def err(self, tool: str, code: str, /, **args: Any) -> dict[str, Any]:
        result = await self.call(tool, **args)
        assert result.is_error, f"expected {code}, got success: {result.structured}"
        assert result.structured is not None
        error: dict[str, Any] = result.structured["error"]
        assert error["code"] == code, error
        return error

    async def token_for(self, tool: str, /, **args: Any) -> str:
        """The call must answer elicit_required; returns a token minted as `vaultgate confirm` does."""
        first = await self.call(tool, **args)
        assert first.is_error and first.structured is not None, f"{tool} did not ask for confirmation"
        error = first.structured["error"]
        assert error["code"] == "elicit_required", error
        store = self.app.services.confirmations
        [request] = await store.pending(error["details"]["args_hash"], error["details"]["vault"])
        token, _ = await store.mint(request, minted_by="test")
        return str(token)

    async def confirmed(self, tool: str, /, **args: Any) -> dict[str, Any]:
        """A call that needs a human: confirm it (see `token_for`) and retry it with the token."""
        return await self.ok(tool, **args, elicit_token=await self.token_for(tool, **args))

    def indexer(self, vault: str | None = None) -> VaultIndexer:
        """The indexer of vault `vault` (of the only vault when none is named)."""
        found = indexer_of(self.app.vaults[vault] if vault else next(iter(self.app.vaults.values())))
        assert found is not None
        return found

    async def indexed(self, within: float = 120.0) -> None:
        """Wait (bounded) until every vault's initial index reconcile is done."""
        for vault in self.app.vaults.values():
            indexer = indexer_of(vault)
            if indexer is not None:
                await indexer.wait_ready(within)

    async def settled(self) -> None:
        """Wait until every index update the writes so far queued has been applied (a write is
        acknowledged before its index update: docs/write-path.md). The first index is waited for
        too: a test that reads right after it sees every note of the vault (a write made during it
        is applied between its batches, `service/indexer/early.py`, or, one of many notes, at its end)."""
        await self.indexed()
        for vault in self.app.vaults.values():
            indexer = indexer_of(vault)
            if indexer is not None:
                await indexer.caught_up(indexer.queued_seq)

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def snapshot(self) -> dict[str, bytes]:
        """The vault's parent folder — the test's temp dir, so a traversal target such as
        `../outside` next to the vault is covered too, and so are the other vaults there. A vault
        that is the test's tmp_path itself has pytest's base temp folder as parent, which holds
        every earlier test's folders, the cache databases and the model files of this worker (late
        in a CI run one snapshot read them for minutes, past the test's timeout): there the
        vault's siblings count by name only."""
        parent = self.root.parent
        if parent not in BASETEMPS:
            return snapshot(parent)
        out = {f"{self.root.name}/{rel}": data for rel, data in snapshot(self.root).items()}
        out[f"{self.root.name}/"] = b""
        for p in parent.iterdir():
            if p != self.root:
                out[p.name + ("/" if p.is_dir() and not p.is_symlink() else "")] = b""
        return out

    def changed_since(self, before: dict[str, bytes]) -> set[str]:
        """The vault's files (vault-relative) made, edited, moved away or deleted since `before`
        (a `snapshot`)."""
        after, vault = self.snapshot(), self.root.name
        return {
            k[len(vault) + 1 :]
            for k in set(before) | set(after)
            if before.get(k) != after.get(k) and not k.endswith("/") and k.startswith(f"{vault}/")
        }


def settings_for(root: Path, **overrides: Any) -> Settings:
    overrides.setdefault("http", {})
    overrides["http"].setdefault("port", 0)
    # Semantic search is tested where it is the subject (tests/semantic, tests/tools/search,
    # e2e): elsewhere the embedding job would only spend the test machine's CPU.
    overrides.setdefault("embeddings", {"provider": "none"})
    # The consolidation plane's schedule is tested where it is the subject (tests/tools/plane):
    # elsewhere a background run would only add noise to what a test measures.
    overrides.setdefault("plane", {"enabled": False})
    return load_settings(root, **overrides)


@contextlib.asynccontextmanager
async def started(root: Path, **overrides: Any) -> AsyncIterator[Harness]:
    app = VaultgateApp(settings_for(root, **overrides))
    async with app.running():
        yield Harness(app, root)


async def indexed_before(root: Path, version: int, *statements: str) -> None:
    """Index `root`, then leave its index as a reading before migration `version` wrote it: the
    `statements` undo what the newer reading stores, and the migration is forgotten, so the next
    start applies it again (the re-reading a migration asks for is what such a test checks)."""
    async with started(root) as harness:
        await harness.indexed()
        db_path = Path(harness.app.db.path)
    conn = sqlite3.connect(db_path)
    with conn:
        for statement in statements:
            conn.execute(statement)
        conn.execute("DELETE FROM schema_migrations WHERE version = ?", (version,))
    conn.close()


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault()) as harness:
        yield harness


@contextlib.asynccontextmanager
async def e2e(root: Path, **overrides: Any) -> AsyncIterator[tuple[str, Harness]]:
    settings = settings_for(root, **overrides)
    async with serving(settings) as (url, app):
        yield url, Harness(app, root)


@pytest.fixture
async def e2e_server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Harness]]:
    async with e2e(make_vault()) as pair:
        yield pair


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param
