"""Settings: one pydantic-settings class with one nested model per area.

Sources, highest priority first: values passed in (tests, the CLI), `VAULTGATE_*` environment
variables (`__` for nesting, JSON for lists), then the TOML config file when one is given. A bare
vault folder is a complete configuration (one vault `main`, every default). Only the entry point
and `app.py` build a `Settings`; other modules receive the sub-model they need.

Secrets are `SecretStr`: they are never printed by `redacted()` or `vaultgate config show`.
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from service.errors import ConfigError

_VAULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_CONFIG_FILE: ContextVar[Path | None] = ContextVar("vaultgate_config_file", default=None)

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for names and addresses that only this machine can reach."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PrefixRule(_Section):
    """Seed 004 prefix rule: independent read/write decisions for a folder (or file) prefix."""

    path: str = Field(description="Vault-relative prefix, e.g. 'Private' or 'Projects/Secret'; '' = whole vault.")
    read: Literal["allow", "deny"] | None = Field(default=None, description="Decision for reads.")
    write: Literal["allow", "deny"] | None = Field(default=None, description="Decision for writes and deletes.")


class AclSettings(_Section):
    """Path ACL of a vault (the root block is the default; a vault's own block replaces it)."""

    read_only: bool = Field(default=False, description="Kill switch: no tool may change anything.")
    default_deny: bool = Field(default=False, description="Paths no rule or allowlist covers are denied.")
    read_paths: list[str] | None = Field(default=None, description="Glob allowlist for reads (None = all).")
    write_paths: list[str] | None = Field(default=None, description="Glob allowlist for writes (None = all).")
    delete_paths: list[str] | None = Field(default=None, description="Glob allowlist for deletes (None = all).")
    prefix_rules: list[PrefixRule] = Field(
        default_factory=list, description="Longest prefix wins; deny beats allow at equal length."
    )


class VaultConfig(_Section):
    """One served vault."""

    id: str = Field(description="Stable id callers pass as the `vault` argument.")
    path: Path = Field(description="The vault folder.")
    name: str | None = Field(default=None, description="Name used in obsidian:// URLs; default: folder name.")
    acl: AclSettings | None = Field(default=None, description="This vault's ACL (replaces the root [acl]).")

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str) -> str:
        if not _VAULT_ID.match(value):
            raise ValueError("vault id must be 1-64 letters, digits, '_' or '-', starting with a letter/digit")
        return value

    @property
    def display_name(self) -> str:
        return self.name or self.path.name


class HttpSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    path: str = "/mcp"
    allowed_hosts: list[str] | None = Field(
        default=None, description="Host header allowlist; default: the bound host and loopback names."
    )
    allowed_origins: list[str] | None = Field(
        default=None, description="Origin allowlist; default: http(s) origins of the allowed hosts."
    )
    dns_rebinding_protection: bool = True
    json_response: bool = Field(
        default=False, description="Answer POSTs with plain JSON instead of SSE (no progress/elicitation)."
    )
    stateless: bool = False
    session_idle_timeout_seconds: float = 1800.0
    max_request_body_bytes: int = 4 * 1024 * 1024
    graceful_shutdown_seconds: float = 5.0

    def effective_allowed_hosts(self) -> list[str]:
        if self.allowed_hosts is not None:
            return list(self.allowed_hosts)
        names = {self.host, "127.0.0.1", "localhost", "[::1]"}
        if ":" in self.host and not self.host.startswith("["):
            names.discard(self.host)
            names.add(f"[{self.host}]")
        hosts: list[str] = []
        for name in sorted(names):
            hosts += [name, f"{name}:*"]
        return hosts

    def effective_allowed_origins(self) -> list[str]:
        if self.allowed_origins is not None:
            return list(self.allowed_origins)
        origins: list[str] = []
        for host in self.effective_allowed_hosts():
            origins += [f"http://{host}", f"https://{host}"]
        return origins


class GovernorSettings(_Section):
    max_response_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="Largest serialized tool result; bigger → `overflow`."
    )


class WriteSettings(_Section):
    max_concurrent: int = Field(default=8, ge=1, description="Concurrent file writes per vault.")
    trash_folder: str = ".trash"


class StorageSettings(_Section):
    cache_dir: Path | None = Field(
        default=None,
        description="Where cache.db lives; default: <vault>/.vaultgate for a bare vault, "
        "<config dir>/.vaultgate for a config file.",
    )
    readers: int = Field(default=4, ge=1, le=32, description="Read connections in the pool.")


class AuthSettings(_Section):
    mode: Literal["none", "jwt"] = Field(default="none", description="`none` is allowed on loopback only.")
    jwt_secret: SecretStr | None = Field(default=None, description="HS256 shared secret (>= 32 bytes).")
    jwks_file: Path | None = Field(default=None, description="Local JWKS file for RS256/ES256/EdDSA.")
    jwks: dict[str, Any] | None = Field(default=None, description="Inline JWKS.")
    issuer: str | None = Field(default=None, description="Required `iss` claim (when set).")
    audience: str | None = Field(default=None, description="Required `aud` claim (when set).")
    leeway_seconds: int = Field(default=30, ge=0, le=600, description="Clock skew allowed for exp/nbf.")
    resource_url: str | None = Field(
        default=None,
        description="Public URL of the MCP endpoint (RFC 9728 `resource`), e.g. https://notes.example.com/mcp; "
        "default: derived from the request.",
    )
    authorization_servers: list[str] = Field(
        default_factory=list, description="Issuers clients may get tokens from (RFC 9728); default: [issuer]."
    )
    protect_metrics: bool = Field(default=False, description="Require a bearer token with `admin` for /metrics.")


class NotesSettings(_Section):
    bulk_confirm_above: int = Field(
        default=20, ge=0, description="bulk_create_notes asks for confirmation above this many notes."
    )


class IndexSettings(_Section):
    watch: bool = Field(default=True, description="Watch vault folders for edits made by other programs.")
    debounce_ms: int = Field(default=50, ge=0, le=5000, description="Watcher debounce window.")
    parse_workers: int | None = Field(
        default=None,
        ge=0,
        le=64,
        description="Processes that parse notes during a bulk (re)index beside the SQLite writer;"
        " 0 parses in a thread. Default: CPU count - 1, at most 3.",
    )


class SearchSettings(_Section):
    regex_budget_ms: int = Field(default=2000, ge=10, description="Default time budget of one search_regex call.")
    regex_max_budget_ms: int = Field(default=10_000, ge=10, description="Ceiling for a caller's `budget_ms`.")
    jsonlogic_max_ops: int = Field(
        default=2_000_000, ge=1000, description="Operations one query_jsonlogic call may evaluate (all notes)."
    )


class IdempotencySettings(_Section):
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


class ThrottleClass(_Section):
    rate_per_minute: float = Field(default=60, gt=0, description="Sustained calls per minute.")
    burst: int = Field(default=10, ge=1, description="Calls allowed at once before the rate applies.")


ScopeClassName = Literal["read", "write", "delete", "bulk", "execute", "admin"]


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


class ThrottleSettings(_Section):
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


class ConfirmationSettings(_Section):
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


class AuditSettings(_Section):
    enabled: bool = Field(default=True, description="One event_log row per tool call (args_hash, never arguments).")
    retention_days: float = Field(default=30, gt=0, description="event_log rows older than this are trimmed.")
    queue_size: int = Field(default=10_000, ge=100, description="Events buffered before new ones are dropped.")


class EventsSettings(_Section):
    spool: bool = Field(default=True, description="CloudEvents JSONL per vault per day under the cache dir.")
    spool_dir: Path | None = Field(default=None, description="Where the spool goes; default: <cache dir>/events.")
    push_url: str | None = Field(default=None, description="Also POST each batch (JSON array) to this URL.")
    push_timeout_seconds: float = Field(default=2.0, gt=0)
    retention_days: float = Field(default=14, gt=0, description="Spool files older than this are deleted.")


class OtelSettings(_Section):
    endpoint: str | None = Field(
        default=None, description="OTLP/HTTP traces endpoint, e.g. http://localhost:4318/v1/traces; unset = no tracing."
    )
    service_name: str = "vaultgate"
    headers: dict[str, str] = Field(default_factory=dict, description="Extra OTLP headers (e.g. an API key).")


class MaintenanceSettings(_Section):
    interval_seconds: float = Field(default=3600, ge=1, description="How often the maintenance sweep runs.")


class SessionSettings(_Section):
    trace_folder: str = Field(default="Agent Sessions", description="Vault folder for session traces (JSONL).")
    retention_days: float = Field(default=30, gt=0, description="Session traces older than this are deleted.")


class ToolVisibilitySettings(_Section):
    """Which tools exist for callers. Entries match a tool name, its domain or one of its tags."""

    allowed: list[str] | None = Field(
        default=None, description="When set, only matching tools exist; every other tool is disabled."
    )
    hidden: list[str] = Field(default_factory=list, description="Not advertised in tools/list, still callable.")
    disabled: list[str] = Field(
        default_factory=list, description="Not advertised and not callable: indistinguishable from unknown tools."
    )
    require_read_only: bool = Field(default=False, description="Advertise only tools that change nothing.")


class ToolFacadeSettings(_Section):
    mode: Literal["flat", "domain", "triad"] = Field(
        default="flat",
        description="What tools/list advertises: every tool (flat), one meta-tool per domain (domain), or "
        "find/describe/call_capability (triad). Every tool stays callable by name in every mode.",
    )


class LogSettings(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["json", "text"] = "text"


class Settings(BaseSettings):
    """The effective configuration of one vaultgate process."""

    model_config = SettingsConfigDict(
        env_prefix="VAULTGATE_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    vaults: list[VaultConfig] = Field(default_factory=list)
    default_vault: str | None = Field(default=None, description="Vault used when a call names none.")
    http: HttpSettings = Field(default_factory=HttpSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    governor: GovernorSettings = Field(default_factory=GovernorSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    notes: NotesSettings = Field(default_factory=NotesSettings)
    writes: WriteSettings = Field(default_factory=WriteSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    acl: AclSettings = Field(default_factory=AclSettings)
    idempotency: IdempotencySettings = Field(default_factory=IdempotencySettings)
    throttle: ThrottleSettings = Field(default_factory=ThrottleSettings)
    confirmation: ConfirmationSettings = Field(default_factory=ConfirmationSettings)
    tool_visibility: ToolVisibilitySettings = Field(default_factory=ToolVisibilitySettings)
    tool_facade: ToolFacadeSettings = Field(default_factory=ToolFacadeSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    events: EventsSettings = Field(default_factory=EventsSettings)
    otel: OtelSettings = Field(default_factory=OtelSettings)
    maintenance: MaintenanceSettings = Field(default_factory=MaintenanceSettings)
    sessions: SessionSettings = Field(default_factory=SessionSettings)
    log: LogSettings = Field(default_factory=LogSettings)
    config_file: Path | None = Field(default=None, exclude=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config_file = _CONFIG_FILE.get()
        if config_file is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=config_file))
        return tuple(sources)

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if not self.vaults:
            raise ValueError("no vault configured: pass a vault folder or declare [[vaults]] in the config")
        ids = [v.id for v in self.vaults]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate vault ids: {sorted({i for i in ids if ids.count(i) > 1})}")
        if self.default_vault is not None and self.default_vault not in ids:
            raise ValueError(f"default_vault {self.default_vault!r} is not a configured vault id")
        if self.auth.mode == "jwt":
            auth = self.auth
            if auth.jwt_secret is None and auth.jwks is None and auth.jwks_file is None:
                raise ValueError(
                    "auth.mode = 'jwt' needs auth.jwt_secret (VAULTGATE_AUTH__JWT_SECRET, HS256) "
                    "or a JWKS (auth.jwks / VAULTGATE_AUTH__JWKS_FILE)"
                )
            if auth.jwt_secret is not None and len(auth.jwt_secret.get_secret_value().encode()) < 32:
                raise ValueError("auth.jwt_secret must be at least 32 bytes (use e.g. `openssl rand -base64 48`)")
        if self.auth.mode == "none" and not is_loopback(self.http.host):
            raise ValueError(
                f"refusing to serve without authentication on non-loopback host {self.http.host!r}: "
                "set auth.mode = 'jwt' (VAULTGATE_AUTH__MODE=jwt) or bind 127.0.0.1"
            )
        return self

    @property
    def default_vault_id(self) -> str:
        return self.default_vault or self.vaults[0].id

    def cache_dir(self) -> Path:
        if self.storage.cache_dir is not None:
            return self.storage.cache_dir
        if self.config_file is not None:
            return self.config_file.parent / ".vaultgate"
        return self.vaults[0].path / ".vaultgate"

    def redacted(self) -> dict[str, Any]:
        """The effective config as plain data, secrets masked (SecretStr dumps as '**********')."""
        return self.model_dump(mode="json", exclude={"config_file"})


def load_settings(target: Path | str | None = None, **overrides: Any) -> Settings:
    """Build settings from a vault folder or a TOML file, then env, then `overrides`.

    Raises `ConfigError` with a readable message for anything that cannot be served.
    """
    config_file: Path | None = None
    init: dict[str, Any] = dict(overrides)
    if target is not None:
        path = Path(target).expanduser()
        if path.is_dir():
            init.setdefault("vaults", [{"id": "main", "path": path.resolve()}])
        elif path.is_file():
            config_file = path.resolve()
            init["config_file"] = config_file
        else:
            raise ConfigError(f"{path}: no such vault folder or config file")
    token = _CONFIG_FILE.set(config_file)
    try:
        if config_file is not None:
            _check_toml(config_file)
        settings = Settings(**init)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    finally:
        _CONFIG_FILE.reset(token)
    return _finish(settings)


def config_warnings(settings: Settings) -> list[str]:
    """Things that work but should not be done: a JWT secret written into the config file (it
    ends up in backups and version control) instead of the environment."""
    out: list[str] = []
    if settings.config_file is not None:
        try:
            data = tomllib.loads(settings.config_file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            return out
        auth = data.get("auth")
        if isinstance(auth, dict) and auth.get("jwt_secret"):
            out.append(
                f"auth.jwt_secret is set in {settings.config_file.name}: keep secrets out of config files "
                "(backups, version control); set VAULTGATE_AUTH__JWT_SECRET in the environment instead"
            )
    return out


def _check_toml(path: Path) -> None:
    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path.name}: not valid TOML: {exc}") from None


def _finish(settings: Settings) -> Settings:
    """Resolve relative paths against the config file and check that vault folders exist."""
    base = settings.config_file.parent if settings.config_file else Path.cwd()
    for vault in settings.vaults:
        if not vault.path.is_absolute():
            vault.path = (base / vault.path).resolve()
        else:
            vault.path = vault.path.resolve()
        if not vault.path.is_dir():
            raise ConfigError(f"vault {vault.id!r}: folder {vault.path} does not exist")
    if settings.storage.cache_dir is not None and not settings.storage.cache_dir.is_absolute():
        settings.storage.cache_dir = (base / settings.storage.cache_dir).resolve()
    if settings.events.spool_dir is not None and not settings.events.spool_dir.is_absolute():
        settings.events.spool_dir = (base / settings.events.spool_dir).resolve()
    return settings


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "config"
        lines.append(f"{where}: {err['msg']}")
    return "invalid configuration:\n  " + "\n  ".join(lines)


def redact(value: SecretStr | None) -> str | None:
    return None if value is None else "**********"
