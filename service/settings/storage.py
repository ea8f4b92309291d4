"""Where the cache database lives and how it is read (`[storage]`), and the maintenance sweep
(`[maintenance]`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from service.settings.base import Section


class StorageSettings(Section):
    cache_dir: Path | None = Field(
        default=None,
        description="Where cache.db lives; default: <vault>/.vaultgate for a bare vault, "
        "<config dir>/.vaultgate for a config file.",
    )
    readers: int = Field(default=4, ge=1, le=32, description="Read connections in the pool.")


class MaintenanceSettings(Section):
    interval_seconds: float = Field(default=3600, ge=1, description="How often the maintenance sweep runs.")
