"""The per-user folders vaultgate keeps files in, from the standard library alone.

A leaf module below the settings (which import pydantic): the stdio front finds its stored
answers with it before anything else is imported. `service.settings.storage` documents the
folders; these functions compute them as plain strings:

- `user_cache_home()` / `user_data_home()`: the platform's per-user cache and data folders +
  `vaultgate` (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS,
  `%LOCALAPPDATA%` on Windows; data: `$XDG_DATA_HOME` or `~/.local/share`,
  `~/Library/Application Support`, `%APPDATA%`);
- `folder_key(target)`: the subfolder of one served target (a vault folder or a config file).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys

APP = "vaultgate"


def _home_dir(env: str, linux: str, mac: str, windows_env: str) -> str:
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        return os.environ.get(windows_env) or os.path.join(home, "AppData", "Local")
    if sys.platform == "darwin":
        return os.path.join(home, mac)
    found = os.environ.get(env, "").strip()
    return found if found and os.path.isabs(found) else os.path.join(home, linux)


def user_cache_home() -> str:
    """The platform's per-user cache folder (XDG on Linux) + `vaultgate`."""
    return os.path.join(_home_dir("XDG_CACHE_HOME", ".cache", "Library/Caches", "LOCALAPPDATA"), APP)


def user_data_home() -> str:
    """The platform's per-user data folder (XDG on Linux) + `vaultgate`, kept when caches are cleared."""
    return os.path.join(_home_dir("XDG_DATA_HOME", ".local/share", "Library/Application Support", "APPDATA"), APP)


def folder_key(target: str) -> str:
    """`<slug of the name>-<8 hex of the absolute path>`: readable, and distinct for two vaults
    with the same name."""
    absolute = os.path.realpath(os.path.expanduser(target))
    name = os.path.basename(absolute)
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name  # as `pathlib.PurePath.stem`
    slug = re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")[:40] or "vault"
    return f"{slug}-{hashlib.sha256(absolute.encode()).hexdigest()[:8]}"
