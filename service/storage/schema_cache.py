"""The tools' JSON schemas kept on disk between runs (`tool-schemas.json` in the cache folder).

Generating the input and output JSON schema of every tool from its pydantic models is the
largest single cost of a server's first `tools/list` (~100 ms for 60 tools). The result only
depends on the code, so it is stored next to the index and reused by the next start, like a
`.pyc`: it is valid only for the exact same catalog (tool names and model classes), the same
pydantic and Python versions, and the same source files (path, size and mtime of every module
of the `service` package and of each model's modules). Anything else regenerates it; an unreadable or
unwritable file only costs the regeneration.

A first start on an empty cache folder can take the table from a copy shipped in the package
(`SHIPPED`, written at install time by `vaultgate docs tool-schemas`, as the Docker image does):
that copy is keyed by the *contents* of the same files (a copy of the sources has other mtimes),
so it is used only for exactly the sources it was made from; otherwise it is ignored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

import pydantic

log = logging.getLogger(__name__)

Schemas = tuple[dict[str, Any], dict[str, Any]]


class ToolSpec(Protocol):
    """What the cache reads of a tool (`service.tools.registry.ToolSpec` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def input_model(self) -> type[pydantic.BaseModel]: ...

    @property
    def output_model(self) -> type[pydantic.BaseModel]: ...

    def input_schema(self) -> dict[str, Any]: ...

    def output_schema(self) -> dict[str, Any]: ...


Registry = Iterable[ToolSpec]  # the catalog (`service.tools.registry.Registry`), iterated again per use
FILE_NAME = "tool-schemas.json"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # service/
SHIPPED = Path(__file__).resolve().with_name(FILE_NAME)  # optional: made at install time, never committed


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
    files = package_sources()  # every module, imported yet or not: the key must not depend on import order
    for name in modules:
        path = getattr(sys.modules.get(name), "__file__", None)
        if path:
            files.add(path)
    add_stats(digest, files)
    return digest.hexdigest()


def content_fingerprint(registry: Registry) -> str:
    """What the schemas depend on, from file contents instead of mtimes: the same in every copy
    of the same sources (the shipped table's key)."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version_info[:2]}|{pydantic.VERSION}\n".encode())
    modules: set[str] = set()
    for spec in sorted(registry, key=lambda s: s.name):
        models = (spec.input_model, spec.output_model)
        digest.update((f"{spec.name}|" + "|".join(f"{m.__module__}.{m.__qualname__}" for m in models) + "\n").encode())
        modules |= _model_modules(spec)
    files = {(os.path.relpath(path, _PACKAGE_DIR), path) for path in package_sources()}
    for name in modules:
        path = getattr(sys.modules.get(name), "__file__", None)
        if path and not os.path.abspath(path).startswith(str(_PACKAGE_DIR) + os.sep):
            files.add((name, path))
    for label, path in sorted(files):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        digest.update(f"{label}|{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def shipped_table(registry: Registry) -> str:
    """The JSON of `SHIPPED` for this registry: every tool's schemas under its content key."""
    tools = {spec.name: dict(zip(("input", "output"), generate(spec), strict=True)) for spec in registry}
    return json.dumps({"key": content_fingerprint(registry), "tools": tools}, separators=(",", ":"))


def add_stats(digest: Any, paths: Iterable[str]) -> None:
    """`digest` updated with each file's path, size and mtime (a file gone meanwhile is left out)."""
    for path in sorted(paths):
        try:
            st = os.stat(path)
        except OSError:
            continue
        digest.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())


def package_sources() -> set[str]:
    """Every module file of the `service` package, imported yet or not."""
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

    def __init__(self, registry: Registry, folder: Path, shipped: Path = SHIPPED) -> None:
        self.registry = registry
        self.path = folder / FILE_NAME
        self.shipped = shipped
        self._table: dict[str, Schemas] | None = None
        self._key = ""
        self.hit: bool | None = None  # after the first of(): whether the disk copy was used
        self.from_shipped = False  # after the first of(): whether the shipped copy was used
        # A first tools/list builds the tools in a worker thread (`service.protocol.tool_lists`) while
        # the loop may ask for one tool's schemas: one of them loads (or generates) and saves the table.
        self._lock = threading.Lock()

    def of(self, spec: ToolSpec) -> Schemas:
        table = self._table
        found = table.get(spec.name) if table is not None else None
        if found is not None:
            return found
        with self._lock:
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
        table = self._read(self.path, self._key)
        self.hit = table is not None
        if table is None:
            table = self._read(self.shipped, content_fingerprint(self.registry)) if self.shipped.is_file() else None
            self.from_shipped = table is not None
            if table is None:
                table = {spec.name: generate(spec) for spec in self.registry}
            self._save(table)
        self._table = table
        return table

    def _read(self, path: Path, key: str) -> dict[str, Schemas] | None:
        try:
            data = json.loads(path.read_bytes())
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
