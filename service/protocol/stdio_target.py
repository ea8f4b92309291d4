"""Where a `vaultgate stdio` start keeps its stored answers, and what they depend on, known
before the settings (pydantic) are imported (the front: `service.protocol.stdio_front`).

`target_of` reads the vault folder or config file from the command line (or `$VAULTGATE_CONFIG`),
`cache_folder` finds the folder `Settings.cache_dir()` will name, and `startup_key` digests what
the stored answers depend on: the runtime, the installed distributions, the sources of `service`
and what the settings are made of. Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from service import folders

_SERVICE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What the settings are made of besides the command line and the config file (`service.settings`).
_ENV_PREFIX = "VAULTGATE_"
_ENV_NAMES = ("HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "APPDATA", "LOCALAPPDATA")
FILE_PREFIX = "stdio-answers-"  # + the key's first 16 hex digits + ".json", one file per key
KEPT_FILES = 4  # stores of other keys (settings, versions) kept beside the current one, newest first


# The 2026-07-28 envelope's `_meta` keys (`mcp_types`' *_META_KEY: spelled here, since reading a name
# of `mcp_types` loads every protocol model, which a stdio start's first calls do not use)
MODERN_META = frozenset(
    {
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientInfo",
        "io.modelcontextprotocol/clientCapabilities",
    }
)


def keyed(params: Any) -> Any:
    """The params an answer is stored under: `_meta` keys beyond the 2026-07-28 envelope dropped.
    They hold values of one request that no stored answer depends on (the SDK client injects a
    W3C `traceparent` into every request once tracing is on; a progress token): kept in the key,
    each traced start's `initialize` and each `tools/list` was a new entry, filling the store with
    copies of one ~110 KB list (64 of them, read at every start) that were never asked again."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or not meta.keys() - MODERN_META:
        return params
    return {**params, "_meta": {k: v for k, v in meta.items() if k in MODERN_META}}


def canonical(params: Any) -> str:
    """`keyed(params)` as the text a stored answer's key holds."""
    return json.dumps(keyed(params), sort_keys=True, separators=(",", ":"))


def answers_file(folder: str | os.PathLike[str], key: str) -> str:
    """The store of the answers given under `key` (`startup_key`) in the cache folder."""
    return os.path.join(os.fspath(folder), f"{FILE_PREFIX}{key[:16]}.json")


def prune_answers(current: str) -> None:
    """Stores of other keys (an older version, other settings) beside `current` beyond the newest
    few go (OSError: the folder could not be read)."""
    others = [
        (entry.stat().st_mtime, entry.path)
        for entry in os.scandir(os.path.dirname(current))
        if entry.name.startswith(FILE_PREFIX) and entry.name.endswith(".json") and entry.path != current
    ]
    for _, old in sorted(others, reverse=True)[KEPT_FILES:]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(old)


def startup_key(argv: list[str], environ: Mapping[str, str]) -> str:
    """What the stored answers depend on, known before the settings are loaded: the runtime,
    the installed distributions, the sources of `service`, and what the settings are made of
    (the command line, the working folder, the `VAULTGATE_*` and home-folder variables, the
    config file's bytes)."""
    env = sorted((k, v) for k, v in environ.items() if k.startswith(_ENV_PREFIX) or k in _ENV_NAMES)
    digest = hashlib.sha256()
    digest.update(json.dumps([sys.version, sys.executable, argv, os.getcwd(), env]).encode())
    config = _config_file(argv, environ)
    if config is not None:
        with contextlib.suppress(OSError), open(config, "rb") as handle:
            digest.update(handle.read())
    for entry in sys.path:  # installed distributions: their dist-info folder names carry versions
        if entry.endswith("site-packages") and os.path.isdir(entry):
            names = sorted(n for n in os.listdir(entry) if n.endswith((".dist-info", ".egg-info", ".pth")))
            digest.update(f"{entry}|{'|'.join(names)}\n".encode())
    for folder, dirs, names in os.walk(_SERVICE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    st = os.stat(path)
                    digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def target_of(argv: list[str], environ: Mapping[str, str]) -> str | None:
    """The vault folder or config file of `stdio [TARGET] [--tool-facade MODE]`."""
    if argv[:1] != ["stdio"]:
        return None
    found: list[str] = []
    rest = iter(argv[1:])
    for arg in rest:
        if arg == "--tool-facade":
            if next(rest, None) is None:
                return None
        elif not arg.startswith("--tool-facade=") and arg.startswith("-"):
            return None  # help, or something the full parser reports
        elif not arg.startswith("-"):
            found.append(arg)
    if len(found) > 1:
        return None
    target = found[0] if found else environ.get("VAULTGATE_CONFIG", "").strip()
    return os.path.abspath(os.path.expanduser(target)) if target else None


def _config_file(argv: list[str], environ: Mapping[str, str]) -> str | None:
    target = target_of(argv, environ)
    return target if target is not None and os.path.isfile(target) else None


def cache_folder(target: str, environ: Mapping[str, str]) -> str:
    """`Settings.cache_dir()` as far as the command line, the environment and the config file
    tell without the settings: an explicit `storage.cache_dir`, else the per-target folder."""
    is_file = os.path.isfile(target)
    base = os.path.dirname(target) if is_file else os.getcwd()
    explicit = environ.get(f"{_ENV_PREFIX}STORAGE__CACHE_DIR", "").strip()
    if not explicit and is_file:
        with contextlib.suppress(OSError, ValueError), open(target, "rb") as handle:
            raw = handle.read()
            if b"cache_dir" in raw:  # rare: only then is the TOML parser worth importing
                import tomllib

                storage = tomllib.loads(raw.decode()).get("storage")
                explicit = storage.get("cache_dir", "") if isinstance(storage, dict) else ""
    if isinstance(explicit, str) and explicit:
        return os.path.join(base, os.path.expanduser(explicit))
    return os.path.join(folders.user_cache_home(), folders.folder_key(target))
