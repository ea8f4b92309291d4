"""vaultgate's own folders, and moving an index out of the vault once.

Earlier versions kept everything in `.vaultgate/` inside the vault (or beside the config file),
where sync tools and git see it. When the default folders are in use and that legacy folder
holds a database, `reuse_legacy_index` moves it out, once, and logs it: the database becomes the
index (`cache.db` in the cache folder) and a copy becomes `state.db` in the data folder (the
audit log, idempotency and confirmation records are kept; each database ignores the other's
tables). The event spool moves to the data folder; the tool-schema cache, rebuildable, is
dropped; the legacy folder is removed when nothing else is left in it.

`own_folders` lists every folder vaultgate writes besides the vault's notes, resolved: the file
watcher ignores them and the note tools hide those inside a vault.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from service.settings import Settings

log = logging.getLogger("vaultgate.storage")
DB_FILES = ("cache.db", "cache.db-wal", "cache.db-shm")


def own_folders(settings: Settings) -> tuple[Path, ...]:
    found = [settings.cache_dir(), settings.data_dir(), settings.legacy_cache_dir()]
    if settings.events.spool_dir is not None:
        found.append(settings.events.spool_dir)
    return tuple(dict.fromkeys(folder.resolve() for folder in found))


def hidden_cache_folders(settings: Settings, folders: tuple[Path, ...]) -> tuple[str, ...]:
    """vaultgate's own folders are hidden from note tools when one lives inside a vault."""
    hidden: list[str] = []
    for vault in settings.vaults:
        for folder in folders:
            try:
                rel = folder.relative_to(vault.path.resolve())
            except ValueError:
                continue
            if rel.parts:
                hidden.append(rel.parts[0])
    return tuple(dict.fromkeys(hidden))


def reuse_legacy_index(legacy: Path, cache_dir: Path, data_dir: Path, *, explicit: Path | None) -> bool:
    """Move an in-vault index to the cache folder (and its records to the data folder), once.

    Does nothing when `storage.cache_dir` is set (the operator chose the place), when there is
    no legacy database, or when the cache folder already has one. Returns whether it moved."""
    if explicit is not None or not (legacy / "cache.db").is_file() or (cache_dir / "cache.db").exists():
        return False
    if legacy.resolve() in (cache_dir.resolve(), data_dir.resolve()):
        return False
    cache_dir.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    if not (data_dir / "state.db").exists():
        for name in DB_FILES:
            if (legacy / name).exists():
                shutil.copy2(legacy / name, data_dir / name.replace("cache.db", "state.db"))
    for name in DB_FILES:
        if (legacy / name).exists():
            shutil.move(legacy / name, cache_dir / name)
    events = legacy / "events"
    if events.is_dir() and not (data_dir / "events").exists():
        shutil.move(events, data_dir / "events")
    (legacy / "tool-schemas.json").unlink(missing_ok=True)
    try:
        legacy.rmdir()
        left = "removed it"
    except OSError:
        left = "left the other files there"
    log.warning(
        "reused the index found in %s: moved it to %s (audit and confirmation records to %s) and %s",
        legacy,
        cache_dir,
        data_dir,
        left,
    )
    return True
