"""The tools' JSON schemas kept on disk between runs (`tool-schemas.json` in the cache folder).

Generating the input and output JSON schema of every tool from its pydantic models is the
largest single cost of a server's first `tools/list` (~100 ms for 60 tools). The result only
depends on the code, so it is stored next to the index and reused by the next start, like a
`.pyc`: it is valid only for the exact same catalog (tool names and model classes), the same
pydantic and Python versions, and the same source files (path, size and mtime of every module
of the `service` package and of each model's modules). Anything else regenerates it; an unreadable or
unwritable file only costs the regeneration.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

if TYPE_CHECKING:
    from service.tools.registry import Registry
    from service.tools.spec import ToolSpec

log = logging.getLogger(__name__)

Schemas = tuple[dict[str, Any], dict[str, Any]]
FILE_NAME = "tool-schemas.json"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # service/


def _model_modules(spec: ToolSpec) -> set[str]:
    return {cls.__module__ for model in (spec.input_model, spec.output_model) for cls in model.__mro__}


def fingerprint(registry: Registry) -> str:
    """What the schemas depend on: catalog, library versions and source files."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{pydantic.VERSION}\n".encode())
    modules: set[str] = set()
    for spec in sorted(registry, key=lambda s: s.name):
        models = (spec.input_model, spec.output_model)
        digest.update((f"{spec.name}|" + "|".join(f"{m.__module__}.{m.__qualname__}" for m in models) + "\n").encode())
        modules |= _model_modules(spec)
    files = _package_sources()  # every module, imported yet or not: the key must not depend on import order
    for name in modules:
        path = getattr(sys.modules.get(name), "__file__", None)
        if path:
            files.add(path)
    for path in sorted(files):
        try:
            st = os.stat(path)
        except OSError:
            continue
        digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _package_sources() -> set[str]:
    found: set[str] = set()
    for folder, dirs, names in os.walk(_PACKAGE_DIR):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.update(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return found


def generate(spec: ToolSpec) -> Schemas:
    return spec.input_schema(), spec.output_schema()


class ToolSchemaCache:
    """Schemas of a registry's tools: from disk when still valid, generated (and stored) otherwise.

    Nothing happens before the first `of()` (a process that never lists its tools pays nothing);
    a miss generates the schemas of the whole catalog at once and writes them for the next start.
    """

    def __init__(self, registry: Registry, folder: Path) -> None:
        self.registry = registry
        self.path = folder / FILE_NAME
        self._table: dict[str, Schemas] | None = None
        self._key = ""
        self.hit: bool | None = None  # after the first of(): whether the disk copy was used

    def of(self, spec: ToolSpec) -> Schemas:
        table = self._table if self._table is not None else self._load()
        found = table.get(spec.name)
        if found is None:
            # A tool registered after the table was loaded (or built): generate and store again.
            found = table[spec.name] = generate(spec)
            self._key = fingerprint(self.registry)
            self._save(table)
        return found

    def _load(self) -> dict[str, Schemas]:
        self._key = fingerprint(self.registry)
        table = self._read(self._key)
        self.hit = table is not None
        if table is None:
            table = {spec.name: generate(spec) for spec in self.registry}
            self._save(table)
        self._table = table
        return table

    def _read(self, key: str) -> dict[str, Schemas] | None:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("tools"), dict):
            return None
        table: dict[str, Schemas] = {}
        for name, entry in data["tools"].items():
            if not (isinstance(entry, dict) and isinstance(entry.get("input"), dict)):
                return None
            if not isinstance(entry.get("output"), dict):
                return None
            table[name] = (entry["input"], entry["output"])
        if any(spec.name not in table for spec in self.registry):
            return None
        return table

    def _save(self, table: dict[str, Schemas]) -> None:
        payload = {"key": self._key, "tools": {name: {"input": i, "output": o} for name, (i, o) in table.items()}}
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            log.debug("tool schema cache not written: %s", exc)
            tmp.unlink(missing_ok=True)
