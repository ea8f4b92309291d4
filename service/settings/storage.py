"""Where the server keeps its files (`[storage]`), the maintenance sweep (`[maintenance]`), and the
plan journal's retention and run concurrency (`[plans]`).

Two folders, both outside the vault by default, so sync tools and git never see them and the
file watcher never reacts to the server's own writes:

- the cache folder holds what can be rebuilt from the vault: the index database (`cache.db`
  and its WAL) and the tool-schema cache. Default: the platform's cache folder
  (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
  Windows) + `vaultgate/<slug>-<hash>`, one subfolder per served target: the vault folder for
  a bare vault, the config file for a config file (its vaults share one index database).
- the data folder holds what cannot be rebuilt: `state.db` (the audit log, idempotency keys,
  confirmation requests and tokens, agent sessions) and the CloudEvents spool. Users and OS
  cleaners delete caches, so it lives in the platform's data folder (`$XDG_DATA_HOME` or
  `~/.local/share`, `~/Library/Application Support`, `%APPDATA%`) + the same subfolder name.
  With an explicit `cache_dir` and no `data_dir`, it is `<cache_dir>/data`: whoever names the
  cache folder (a Docker volume) chose a place that is kept.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from service import folders
from service.settings.base import Section


class StorageSettings(Section):
    cache_dir: Path | None = Field(
        default=None,
        description="Where the index (cache.db) lives; default: the platform cache folder "
        "(e.g. ~/.cache/vaultgate/<vault>-<hash>).",
    )
    data_dir: Path | None = Field(
        default=None,
        description="Where the audit log, idempotency and confirmation records (state.db) and the event spool "
        "live; default: the platform data folder (e.g. ~/.local/share/vaultgate/<vault>-<hash>), or "
        "<cache_dir>/data when cache_dir is set.",
    )
    readers: int = Field(default=4, ge=1, le=32, description="Read connections in the pool.")


class PlanSettings(Section):
    keep_runs: int = Field(
        default=200, ge=1, description="Finished plan runs kept per vault in the journal (newest first)."
    )
    max_age_days: float = Field(
        default=90, ge=0, description="Finished plan runs older than this are pruned; 0 keeps them by count only."
    )
    max_concurrency: int = Field(
        default=4, ge=1, le=32, description="Calls of one plan run at once (independent steps, foreach items)."
    )


class MaintenanceSettings(Section):
    interval_seconds: float = Field(default=3600, ge=1, description="How often the maintenance sweep runs.")


def user_cache_home() -> Path:
    """The platform's per-user cache folder (XDG on Linux)."""
    return Path(folders.user_cache_home())


def user_data_home() -> Path:
    """The platform's per-user data folder (XDG on Linux), kept when caches are cleared."""
    return Path(folders.user_data_home())


def folder_key(target: Path) -> str:
    """`<slug of the name>-<8 hex of the absolute path>`: readable, and distinct for two vaults
    with the same name."""
    return folders.folder_key(str(target))
