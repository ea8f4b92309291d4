"""admin domain, server side: server_health, get_server_config and list_vaults.

Touches: settings and the indexers' in-memory state (read only). `server_health` and
`list_vaults` are read-class (any reader may see versions, backends and the vaults it may use —
only those its token reaches; file counts that may include notes a path rule hides from it are
left out: they are for `admin`, as on /readyz, or a caller that may read every note, as in
index_status);
`get_server_config` needs `admin`. Guarantee: secrets never leave `get_server_config` (SecretStr
values, anything under a secret-looking key and credentials inside URLs are masked), and no
absolute host path reaches a caller (vault folders by name, other paths relative to a vault or
the config folder).
"""

from __future__ import annotations

import platform
import re
import sqlite3
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, Field

from service.bridges.probe import BridgeReport
from service.indexer.runner import indexer_of
from service.obsidian.canvas import not_canvas
from service.security.binding import bound_vault
from service.security.scopes import holds
from service.security.visible import unrestricted
from service.settings import Settings
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec

_SECRET_KEY = re.compile(r"(secret|password|passwd|token|api_?key|authorization|headers|credential)", re.I)
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
MASK = "**********"


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


# -- server_health -------------------------------------------------------------------------


class ServerHealthIn(ToolInput):
    probe_bridges: bool = Field(
        default=False,
        description="Probe each vault's Obsidian bridge now (one request or two per bridge, bounded by its "
        "timeout) instead of showing the last probe.",
    )


class VaultIndexState(BaseModel):
    vault: str = Field(description="Vault id.")
    state: str = Field(description="Index state: starting, reconciling, ready, failed, or none (no indexer).")
    ready: bool = Field(description="The initial reconcile is complete.")
    backlog: int = Field(
        description="Notes waiting to be (re)indexed (for a caller a path rule restricts: 1 when any wait)."
    )
    skipped_files: int | None = Field(
        default=0,
        description="Files left out of the index: names that are not UTF-8, FIFOs and other special files, "
        "files that could not be read, parsed or stored (index_status lists examples). Null for a caller a "
        "path rule restricts, unless it holds admin (they may lie where it may not read).",
    )
    fallback_encoding: int | None = Field(
        default=0, description="Notes indexed from a file that is not UTF-8 (null for a restricted caller)."
    )


class ServerHealthOut(ToolOutput):
    status: str = Field(description="ok when every vault's index is ready, else degraded.")
    versions: dict[str, str | None] = Field(description="vaultgate, python, sqlite and mcp versions.")
    backends: dict[str, Any] = Field(description="Storage backends: driver, FTS5, sqlite-vec (with version/error).")
    embedding_model: str | None = Field(description="Active embedding model; null: none is configured.")
    embedding_backend: str | None = Field(
        default=None, description="Where the model runs: onnxruntime-cpu (builtin) or the provider's URL."
    )
    vector_search: str = Field(
        default="off", description="sqlite-vec, exact-scan (sqlite-vec could not load) or off (no embeddings)."
    )
    uptime_seconds: float = Field(description="Seconds since the server started.")
    vaults: list[VaultIndexState] = Field(description="Index state per served vault.")
    bridge: str = Field(
        description="The Obsidian bridges in a phrase: 'none configured', or how many are ready (bridges has each)."
    )
    ocr: str = Field(
        default="off",
        description="Text in images (ocr_attachment, ocr_bulk): ready with the engine's version, off, or "
        "unavailable and why.",
    )
    bridges: list[BridgeReport] = Field(
        default_factory=list,
        description="Per vault with a [vaults.bridge]: reachable or not, plugin and Obsidian versions, companion "
        "routes and community plugins (the probe at start, or a new one with probe_bridges).",
    )


async def server_health(ctx: ToolContext, args: ServerHealthIn) -> ServerHealthOut:
    services = ctx.services
    states = []
    bound = bound_vault(ctx.principal, len(services.vaults), services.settings.default_vault_id)
    admin = holds(ctx.principal.scopes, "admin")
    for vid, vault in services.vaults.items():
        if bound is not None and bound != vid:
            continue  # a bound token (a vault claim, or claimless on a multi-vault server) sees its vault only
        indexer = indexer_of(vault)
        if indexer is None:
            states.append(VaultIndexState(vault=vid, state="none", ready=True, backlog=0))
        else:
            issues = indexer.file_issues.summary()
            backlog = max(indexer.backlog, indexer.catch_up.missed)  # failed updates count until re-read
            # figures over every file: for admin (as /readyz) or a caller that may read every note (index_status)
            restricted = not (
                admin or unrestricted(SimpleNamespace(principal=ctx.principal, vault=vault, services=services))
            )
            states.append(
                VaultIndexState(
                    vault=vid,
                    state=indexer.state,
                    ready=indexer.ready,
                    backlog=min(backlog, 1) if restricted else backlog,
                    skipped_files=None if restricted else issues["skipped"],
                    fallback_encoding=None if restricted else issues["fallback_encoding"],
                )
            )
    bridges = await _bridges(ctx, args.probe_bridges)
    engine = services.semantic
    semantic = engine.describe() if engine is not None else {"model": None, "backend": None, "vector_search": "off"}
    return ServerHealthOut(
        status="ok" if all(s.ready for s in states) else "degraded",
        versions={
            "vaultgate": _version("vaultgate"),
            "python": platform.python_version(),
            "sqlite": services.db.backends.sqlite_version or sqlite3.sqlite_version,
            "mcp": _version("mcp"),
        },
        backends=services.db.backends.as_dict(),
        embedding_model=semantic["model"],
        embedding_backend=semantic["backend"],
        vector_search=semantic["vector_search"] or "off",
        uptime_seconds=round(time.time() - services.started_at, 3),
        vaults=states,
        bridge=_bridge_line(bridges),
        bridges=bridges,
        ocr=services.ocr.engine.describe() if services.ocr is not None else "off",
    )


async def _bridges(ctx: ToolContext, probe: bool) -> list[BridgeReport]:
    """The bridge reports of the vaults the caller may see (a vault-bound token: its own)."""
    hub = ctx.services.bridges
    bound = ctx.principal.vault
    out: list[BridgeReport] = []
    for vid, vault in ctx.services.vaults.items():
        if (bound is not None and bound != vid) or not hub.configured(vault.config):
            continue
        report = await hub.probe(vault.config) if probe else hub.report(vault.config)
        if report is not None:
            out.append(report)
    return out


def _bridge_line(reports: list[BridgeReport]) -> str:
    if not reports:
        return "none configured"
    ready = sum(r.state == "ready" for r in reports)
    return f"{ready} of {len(reports)} ready"


# -- get_server_config ---------------------------------------------------------------------


class GetServerConfigIn(ToolInput):
    pass


class GetServerConfigOut(ToolOutput):
    config: dict[str, Any] = Field(
        description="The effective configuration, secrets masked as '**********'; host paths shown relative to "
        "a vault or the config folder (vault folders by name), never absolute."
    )
    plugins: list[str] = Field(description="Obsidian plugins detected in the vault's .obsidian/plugins folder.")


def redact(value: Any, key: str = "") -> Any:
    """Mask anything stored under a secret-looking key and credentials embedded in URLs."""
    if isinstance(value, dict):
        if _SECRET_KEY.search(key) and value:
            return {k: MASK for k in value}
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if isinstance(value, str):
        if _SECRET_KEY.search(key):
            return MASK
        return _URL_USERINFO.sub(MASK + "@", value)
    return value


def host_path(path: Path | str | None, settings: Settings) -> str | None:
    """A host path as a caller may see it: relative to a vault (`<vault main>/.vaultgate`) or to
    the config file's folder (`<config dir>/cache`), else only its last part — never absolute."""
    if path is None:
        return None
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    anchors = [(f"<vault {v.id}>", v.path) for v in settings.vaults]
    if settings.config_file is not None:
        anchors.append(("<config dir>", settings.config_file.parent))
    for label, root in anchors:
        if p == root or root in p.parents:
            rel = p.relative_to(root).as_posix()
            return label if rel == "." else f"{label}/{rel}"
    return f"<outside the config dir>/{p.name}"


def hide_host_paths(config: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """No absolute host path reaches a caller. Vault folders become their folder name."""
    for vault in config.get("vaults", []):
        if isinstance(vault, dict) and vault.get("path"):
            vault["path"] = Path(str(vault["path"])).name
    for section, key in (
        ("storage", "cache_dir"),
        ("storage", "data_dir"),
        ("events", "spool_dir"),
        ("auth", "jwks_file"),
    ):
        block = config.get(section)
        if isinstance(block, dict) and block.get(key):
            block[key] = host_path(block[key], settings)
    return config


async def get_server_config(ctx: ToolContext, args: GetServerConfigIn) -> GetServerConfigOut:
    plugins_dir = ctx.vault.paths.root / ".obsidian" / "plugins"
    plugins = sorted(p.name for p in plugins_dir.iterdir() if p.is_dir()) if plugins_dir.is_dir() else []
    settings = ctx.services.settings
    return GetServerConfigOut(config=hide_host_paths(redact(settings.redacted()), settings), plugins=plugins)


# -- list_vaults ---------------------------------------------------------------------------


class ListVaultsIn(ToolInput):
    pass


class VaultOut(BaseModel):
    id: str = Field(description="Vault id (pass as `vault`).")
    name: str = Field(description="Obsidian vault name.")
    default: bool = Field(description="Used when a call names no vault.")
    read_only: bool = Field(description="Writes are refused.")
    notes: int | None = Field(description="Indexed notes you may read (null when the vault has no index).")


class ListVaultsOut(ToolOutput):
    items: list[VaultOut] = Field(description="The vaults this caller may use.")
    next_cursor: str | None = Field(default=None, description="Always null: every vault fits in one page.")


async def list_vaults(ctx: ToolContext, args: ListVaultsIn) -> ListVaultsOut:
    principal = ctx.principal
    default = ctx.services.settings.default_vault_id
    bound = bound_vault(principal, len(ctx.services.vaults), default)
    items = []
    for vid, vault in ctx.services.vaults.items():
        if bound is not None and bound != vid:
            continue  # a bound token (a vault claim, or claimless on a multi-vault server) sees its vault only
        notes = None
        if indexer_of(vault) is not None:
            # Only notes this caller may read are counted: a count must not reveal a denied folder.
            # A caller no rule restricts may read them all: counted by SQLite, not path by path
            # (13,415 paths took 70-350 ms of the event loop, ~2.5 s while the index loaded).
            if unrestricted(SimpleNamespace(principal=principal, vault=vault, services=ctx.services)):
                sql = f"SELECT count(*) FROM notes WHERE vault_id = ? AND {not_canvas()}"
                notes = int((await ctx.services.db.fetchall(sql, (vid,)))[0][0])
            else:
                sql = f"SELECT path FROM notes WHERE vault_id = ? AND {not_canvas()}"
                rows = await ctx.services.db.fetchall(sql, (vid,))
                notes = sum(1 for (rel,) in rows if ctx.services.guard.allows(principal, vault, str(rel), "read"))
        items.append(
            VaultOut(id=vid, name=vault.name, default=vid == default, read_only=_read_only(ctx, vid), notes=notes)
        )
    return ListVaultsOut(items=items)


def _read_only(ctx: ToolContext, vid: str) -> bool:
    vault = ctx.services.vaults[vid]
    acl = vault.config.acl or ctx.services.settings.acl
    return bool(acl.read_only)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="server_health",
        domain="admin",
        title="Server health",
        description="Versions (vaultgate, python, sqlite, mcp), active backends (FTS5, sqlite-vec, embedding model), "
        "index state per vault and the Obsidian bridge snapshot.",
        input_model=ServerHealthIn,
        output_model=ServerHealthOut,
        handler=server_health,
        tags=("admin",),
    ),
    ToolSpec(
        name="get_server_config",
        domain="admin",
        title="Server configuration",
        description="The effective configuration with every secret masked, and the Obsidian plugins found in the "
        "vault.",
        input_model=GetServerConfigIn,
        output_model=GetServerConfigOut,
        handler=get_server_config,
        scopes=("admin",),
        scope_class="admin",
        tags=("admin",),
    ),
    ToolSpec(
        name="list_vaults",
        domain="admin",
        title="List vaults",
        description="The vaults this caller may use: id, Obsidian name, default flag, read-only flag, indexed notes.",
        input_model=ListVaultsIn,
        output_model=ListVaultsOut,
        handler=list_vaults,
        tags=("admin",),
    ),
)
