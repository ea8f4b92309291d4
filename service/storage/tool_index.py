"""Where each tool is declared, kept on disk between runs (`tool-index.json` in the cache folder).

A lazily built registry (`service.tools.registry.build_registry(folder)`) imports a domain
package only when one of its tools is first looked up; to know which package that is without
importing them all, it reads this table: tool name -> the registry part that declares it. The
table is written after a complete build of the registry, which passed every start-up check, and
is valid only for the exact same sources (`sources_key`: Python and pydantic versions, path, size
and mtime of every module of the `service` package), like a `.pyc`. A table of other sources, an
unreadable one or none means a complete build, which writes it again; a wrong entry can cost a
complete load, never a wrong answer (the registry looks a tool up in every part before it says
the tool is unknown).

The package ships the same table (`SHIPPED`, `service/tools/tool-index.json`, made by `vaultgate
docs tool-index`; a contract test checks it equals what a complete build finds), so a first start
on an empty cache folder imports no domain before its first call either. It carries no key: its
names are trusted as the cache's are, and a stale entry costs at most a complete load.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pydantic

from service.storage.schema_cache import add_stats, package_sources

log = logging.getLogger(__name__)

FILE_NAME = "tool-index.json"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # service/
SHIPPED = _PACKAGE_DIR / "tools" / FILE_NAME  # committed, beside the registry


def valid_table(where: object) -> dict[str, str] | None:
    """`where` when it is a non-empty table of tool name -> registry part, else None."""
    if not isinstance(where, dict) or not where:
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in where.items()):
        return None
    return where


def shipped_table(where: Mapping[str, str]) -> str:
    """The text of `SHIPPED` for a complete registry's table (one tool a line, catalog order)."""
    lines = ",\n".join(f"  {json.dumps(name)}: {json.dumps(part)}" for name, part in where.items())
    return '{"tools": {\n' + lines + "\n}}\n"


def read_shipped(path: Path = SHIPPED) -> dict[str, str] | None:
    """The package's table, or None when absent or unreadable."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return valid_table(data.get("tools")) if isinstance(data, dict) else None


def sources_key() -> str:
    """What a registry built from this process's code depends on (~2 ms: one `stat` per module)."""
    digest = hashlib.sha256(f"{sys.version}|{pydantic.VERSION}\n".encode())
    add_stats(digest, package_sources())
    return digest.hexdigest()


class ToolIndex:
    """The table of one cache folder: `read()` when still valid, `write()` after a complete build."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE_NAME
        self._key: str | None = None

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = sources_key()
        return self._key

    def read(self) -> dict[str, str] | None:
        """Tool name -> registry part, or None when absent, unreadable or made from other sources."""
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != self.key:
            return None
        return valid_table(data.get("tools"))

    def write(self, where: Mapping[str, str]) -> None:
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"key": self.key, "tools": dict(where)}, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            log.debug("tool index not written: %s", exc)
            tmp.unlink(missing_ok=True)
