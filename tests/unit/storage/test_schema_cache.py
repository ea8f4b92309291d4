"""Tool schemas stored between runs (service/storage/schema_cache.py): a restart lists exactly
the tools a fresh generation would, from disk, and anything that could change a schema — the
catalog or a model's source file — regenerates it."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.storage.schema_cache import FILE_NAME, ToolSchemaCache, fingerprint
from service.tools.registry import Registry, build_registry
from service.tools.spec import ToolSpec


async def _listed(app: VaultgateApp) -> list[dict[str, Any]]:
    result = await app.dispatcher.on_list_tools(None, None)  # type: ignore[arg-type]
    return [tool.model_dump(mode="json", by_alias=True) for tool in result.tools]


def _generated(app: VaultgateApp) -> list[dict[str, Any]]:
    return [spec.to_mcp().model_dump(mode="json", by_alias=True) for spec in app.dispatcher.listed()]


async def test_a_restart_lists_the_same_tools_from_the_stored_schemas(make_vault: Callable[..., Path]) -> None:
    settings = load_settings(make_vault())
    first = VaultgateApp(settings)
    assert await _listed(first) == _generated(first)
    stored = settings.cache_dir() / FILE_NAME
    assert stored.is_file()

    second = VaultgateApp(load_settings(make_vault()))
    second.dispatcher.schemas = (cache := ToolSchemaCache(second.registry, settings.cache_dir())).of
    assert await _listed(second) == _generated(first)
    assert cache.hit is True


async def test_stored_schemas_of_another_catalog_or_a_broken_file_are_regenerated(
    make_vault: Callable[..., Path],
) -> None:
    settings = load_settings(make_vault())
    folder = settings.cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    app = VaultgateApp(settings)
    wrong = {name: {"input": {"type": "object"}, "output": {"type": "object"}} for name in app.registry.names()}
    for text in (json.dumps({"key": "another catalog", "tools": wrong}), "{not json"):
        (folder / FILE_NAME).write_text(text, encoding="utf-8")
        fresh = VaultgateApp(settings)
        fresh.dispatcher.schemas = (cache := ToolSchemaCache(fresh.registry, folder)).of
        assert await _listed(fresh) == _generated(fresh)
        assert cache.hit is False
        assert json.loads((folder / FILE_NAME).read_text())["key"] == fingerprint(fresh.registry)


def _module_tool(folder: Path, name: str) -> ToolSpec:
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))

    async def handler(ctx: Any, args: Any) -> Any:
        return module.Out(text=args.text)

    return ToolSpec("probe", "bench", "Probe", "Probe tool.", module.In, module.Out, handler)


def test_a_changed_model_source_file_invalidates_the_stored_schemas(tmp_path: Path) -> None:
    source = tmp_path / "schema_cache_probe_models.py"
    source.write_text(
        "from pydantic import Field\n"
        "from service.tools.models import ToolInput, ToolOutput\n"
        "class In(ToolInput):\n    text: str = Field(description='Text.')\n"
        "class Out(ToolOutput):\n    text: str = Field(description='Text.')\n",
        encoding="utf-8",
    )
    try:
        registry = Registry([_module_tool(tmp_path, "schema_cache_probe_models")])
        before = fingerprint(registry)
        assert fingerprint(registry) == before
        stat = source.stat()
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert fingerprint(registry) != before
    finally:
        sys.modules.pop("schema_cache_probe_models", None)


def test_a_tool_registered_after_the_first_listing_gets_its_schema_and_a_new_key(tmp_path: Path) -> None:
    source = tmp_path / "schema_cache_late_models.py"
    source.write_text(
        "from pydantic import Field\n"
        "from service.tools.models import ToolInput, ToolOutput\n"
        "class In(ToolInput):\n    text: str = Field(description='Text.')\n"
        "class Out(ToolOutput):\n    text: str = Field(description='Text.')\n",
        encoding="utf-8",
    )
    try:
        first = _module_tool(tmp_path, "schema_cache_late_models")
        registry = Registry([first])
        cache = ToolSchemaCache(registry, tmp_path / "cache")
        assert cache.of(first) == (first.input_schema(), first.output_schema())
        key_before = json.loads((tmp_path / "cache" / FILE_NAME).read_text())["key"]

        late = dataclasses.replace(first, name="late_probe")
        registry.add(late)
        assert cache.of(late) == (late.input_schema(), late.output_schema())
        stored = json.loads((tmp_path / "cache" / FILE_NAME).read_text())
        assert stored["key"] == fingerprint(registry) != key_before
        assert set(stored["tools"]) == {"probe", "late_probe"}
    finally:
        sys.modules.pop("schema_cache_late_models", None)


def test_the_key_does_not_depend_on_which_modules_were_imported_first() -> None:
    import service.retrieval.jsonlogic  # noqa: F401 - imported lazily by the server

    registry = build_registry()
    with_module = fingerprint(registry)
    saved = sys.modules.pop("service.retrieval.jsonlogic")
    try:
        assert fingerprint(registry) == with_module
    finally:
        sys.modules["service.retrieval.jsonlogic"] = saved
