"""Settings: one pydantic-settings class (`Settings`, in `root.py`) with one section per area.

    base.py           Section: the strict base of every section
    vaults.py         [[vaults]], [acl], [writes], [notes]
    bridges.py        [vaults.bridge]: the Local REST API of a running Obsidian
    http.py           [http]
    auth.py           [auth]
    index.py          [index], [search]
    limits.py         [limits]: the budgets of evaluators, decoders and expanders
    memory.py         [memory]: the memory folder, the capture inbox, their limits
    plane.py          [plane]: the consolidation plane's schedule and auto-apply kinds
    inference.py      [inference]: the plane's optional OpenAI-compatible inference gateway
    sensitive.py      [sensitive]
    embeddings.py     [embeddings]
    rerank.py         [rerank]
    policy.py         [governor], [idempotency], [throttle], [confirmation], [tool_visibility], [tool_facade]
    observability.py  [audit], [events], [otel], [sessions], [log]
    storage.py        [storage], [maintenance], [plans]
    protocol.py       [protocol]
    root.py           Settings: the sections together, the sources and their order, cross-checks
    loader.py         load_settings (folder or TOML, then env, then overrides), check_config (every
                      problem of every stage in one run), config_warnings
    checks.py         folder_problems: can the vaults, cache, data and spool folders be used
    net.py            is_loopback

Every public name is re-exported here: import from `service.settings`, not from its modules.
"""

from __future__ import annotations

from service.settings.auth import AuthSettings
from service.settings.bridges import BridgeSettings
from service.settings.embeddings import EmbeddingSettings
from service.settings.http import HttpSettings
from service.settings.index import IndexSettings, SearchSettings
from service.settings.inference import InferenceSettings
from service.settings.limits import LimitsSettings
from service.settings.loader import check_config, config_warnings, load_settings
from service.settings.memory import MemorySettings
from service.settings.net import LOOPBACK_NAMES, is_loopback
from service.settings.observability import AuditSettings, EventsSettings, LogSettings, OtelSettings, SessionSettings
from service.settings.ocr import OcrSettings
from service.settings.plane import PlaneSettings
from service.settings.policy import (
    ConfirmationSettings,
    GovernorSettings,
    IdempotencySettings,
    ScopeClassName,
    ThrottleClass,
    ThrottleSettings,
    ToolFacadeSettings,
    ToolVisibilitySettings,
)
from service.settings.protocol import ProtocolSettings
from service.settings.rerank import RerankSettings
from service.settings.root import Settings, redact
from service.settings.sensitive import SensitiveMode, SensitiveSettings
from service.settings.storage import MaintenanceSettings, PlanSettings, StorageSettings
from service.settings.vaults import AclSettings, NotesSettings, PrefixRule, VaultConfig, WriteSettings

__all__ = [
    "check_config",
    "LOOPBACK_NAMES",
    "AclSettings",
    "AuditSettings",
    "AuthSettings",
    "BridgeSettings",
    "EmbeddingSettings",
    "RerankSettings",
    "ConfirmationSettings",
    "EventsSettings",
    "GovernorSettings",
    "HttpSettings",
    "IdempotencySettings",
    "IndexSettings",
    "LimitsSettings",
    "LogSettings",
    "MaintenanceSettings",
    "InferenceSettings",
    "MemorySettings",
    "OcrSettings",
    "PlaneSettings",
    "NotesSettings",
    "OtelSettings",
    "PlanSettings",
    "PrefixRule",
    "ProtocolSettings",
    "ScopeClassName",
    "SearchSettings",
    "SensitiveMode",
    "SensitiveSettings",
    "SessionSettings",
    "Settings",
    "StorageSettings",
    "ThrottleClass",
    "ThrottleSettings",
    "ToolFacadeSettings",
    "ToolVisibilitySettings",
    "VaultConfig",
    "WriteSettings",
    "config_warnings",
    "is_loopback",
    "load_settings",
    "redact",
]
