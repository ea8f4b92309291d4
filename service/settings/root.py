"""Settings: one pydantic-settings class with one nested model per area.

Sources, highest priority first: values passed in (tests, the CLI), `VAULTGATE_*` environment
variables (`__` for nesting, JSON for lists), then the TOML config file when one is given. A bare
vault folder is a complete configuration (one vault `main`, every default). Only the entry point
and `app.py` build a `Settings`; other modules receive the sub-model they need.

Secrets are `SecretStr`: they are never printed by `redacted()` or `vaultgate config show`.
The sections live beside this module, one per area; `service.settings.loader` builds a
`Settings` from a vault folder or config file.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from service.settings.auth import AuthSettings
from service.settings.embeddings import EmbeddingSettings
from service.settings.http import HttpSettings
from service.settings.index import IndexSettings, SearchSettings
from service.settings.inference import InferenceSettings
from service.settings.limits import LimitsSettings
from service.settings.memory import MemorySettings
from service.settings.net import is_loopback
from service.settings.observability import AuditSettings, EventsSettings, LogSettings, OtelSettings, SessionSettings
from service.settings.ocr import OcrSettings
from service.settings.plane import PlaneSettings
from service.settings.policy import (
    ConfirmationSettings,
    GovernorSettings,
    IdempotencySettings,
    ThrottleSettings,
    ToolFacadeSettings,
    ToolVisibilitySettings,
)
from service.settings.protocol import ProtocolSettings
from service.settings.rerank import RerankSettings
from service.settings.sensitive import SensitiveSettings
from service.settings.storage import (
    MaintenanceSettings,
    PlanSettings,
    StorageSettings,
    folder_key,
    user_cache_home,
    user_data_home,
)
from service.settings.vaults import AclSettings, NotesSettings, VaultConfig, WriteSettings

# The TOML file `load_settings` is reading, seen by `settings_customise_sources` (set only for
# the duration of one load).
CONFIG_FILE: ContextVar[Path | None] = ContextVar("vaultgate_config_file", default=None)


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
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    sensitive: SensitiveSettings = Field(default_factory=SensitiveSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
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
    plans: PlanSettings = Field(default_factory=PlanSettings)
    sessions: SessionSettings = Field(default_factory=SessionSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    plane: PlaneSettings = Field(default_factory=PlaneSettings)
    inference: InferenceSettings = Field(default_factory=InferenceSettings)
    ocr: OcrSettings = Field(default_factory=OcrSettings)
    log: LogSettings = Field(default_factory=LogSettings)
    protocol: ProtocolSettings = Field(default_factory=ProtocolSettings)
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
        config_file = CONFIG_FILE.get()
        if config_file is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=config_file))
        return tuple(sources)

    @model_validator(mode="after")
    def _check(self) -> Settings:
        # Every cross-section problem at once (the CLI prints them all), not the first one.
        problems: list[str] = []
        if not self.vaults:
            problems.append("no vault configured: pass a vault folder or declare [[vaults]] in the config")
        ids = [v.id for v in self.vaults]
        if len(set(ids)) != len(ids):
            problems.append(f"duplicate vault ids: {sorted({i for i in ids if ids.count(i) > 1})}")
        if self.default_vault is not None and self.default_vault not in ids:
            problems.append(f"default_vault {self.default_vault!r} is not a configured vault id")
        if self.auth.mode == "none" and not is_loopback(self.http.host):
            problems.append(
                f"refusing to serve without authentication on non-loopback host {self.http.host!r}: "
                "set auth.mode = 'jwt' (VAULTGATE_AUTH__MODE=jwt) or bind 127.0.0.1"
            )
        if problems:
            raise ValueError("\n  ".join(problems))
        return self

    @property
    def default_vault_id(self) -> str:
        return self.default_vault or self.vaults[0].id

    def cache_dir(self) -> Path:
        """The index database's folder (`service.settings.storage` explains the defaults)."""
        if self.storage.cache_dir is not None:
            return self.storage.cache_dir
        return user_cache_home() / folder_key(self._served_target())

    def data_dir(self) -> Path:
        """The folder of what cannot be rebuilt: state.db (audit, idempotency, confirmations)."""
        if self.storage.data_dir is not None:
            return self.storage.data_dir
        if self.storage.cache_dir is not None:
            return self.storage.cache_dir / "data"
        return user_data_home() / folder_key(self._served_target())

    def legacy_cache_dir(self) -> Path:
        """Where earlier versions kept everything: `.vaultgate` in the vault (or beside the
        config file). An index found there is moved out once (`service.storage.relocate`)."""
        if self.config_file is not None:
            return self.config_file.parent / ".vaultgate"
        return self.vaults[0].path / ".vaultgate"

    def _served_target(self) -> Path:
        return self.config_file if self.config_file is not None else self.vaults[0].path

    def redacted(self) -> dict[str, Any]:
        """The effective config as plain data, secrets masked (SecretStr dumps as '**********')."""
        return self.model_dump(mode="json", exclude={"config_file"})


def redact(value: SecretStr | None) -> str | None:
    return None if value is None else "**********"
