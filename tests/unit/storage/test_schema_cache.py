"""Tool schemas stored between runs (service/storage/schema_cache.py): a restart lists exactly
the tools a fresh generation would, from disk, and anything that could change a schema — the
catalog or a model's source file — regenerates it. A first start on an empty cache folder takes
the copy shipped in the package when it was made from the same sources."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.app import VaultgateApp
from service.settings import load_settings
from service.storage import schema_cache
from service.storage.schema_cache import FILE_NAME, ToolSchemaCache, content_fingerprint, fingerprint, shipped_table
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


PROBE = (
    "from pydantic import Field\n"
    "from service.tools.models import ToolInput, ToolOutput\n"
    "class In(ToolInput):\n    text: str = Field(description='Text.')\n"
    "class Out(ToolOutput):\n    text: str = Field(description='Text.')\n"
)


def _no_generation(spec: Any) -> Any:
    raise AssertionError(f"schemas of {spec.name} generated")


def test_an_empty_cache_folder_takes_the_shipped_schemas_of_the_same_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "schema_cache_shipped_models.py"
    source.write_text(PROBE, encoding="utf-8")
    try:
        tool = _module_tool(tmp_path, "schema_cache_shipped_models")
        registry = Registry([tool])
        shipped = tmp_path / "shipped.json"
        shipped.write_text(shipped_table(registry), encoding="utf-8")
        stat = source.stat()  # an installed copy: same contents, other mtimes
        os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
        expected = (tool.input_schema(), tool.output_schema())
        monkeypatch.setattr(schema_cache, "generate", _no_generation)

        cache = ToolSchemaCache(registry, tmp_path / "cache", shipped=shipped)
        assert cache.of(tool) == expected
        assert cache.hit is False and cache.from_shipped is True
        assert json.loads((tmp_path / "cache" / FILE_NAME).read_text())["key"] == fingerprint(registry)
    finally:
        sys.modules.pop("schema_cache_shipped_models", None)


def test_shipped_schemas_made_from_other_sources_are_ignored(tmp_path: Path) -> None:
    source = tmp_path / "schema_cache_stale_models.py"
    source.write_text(PROBE, encoding="utf-8")
    try:
        tool = _module_tool(tmp_path, "schema_cache_stale_models")
        registry = Registry([tool])
        shipped = tmp_path / "shipped.json"
        table = json.loads(shipped_table(registry))
        table["tools"]["probe"]["input"] = {"type": "object", "description": "stale"}
        shipped.write_text(json.dumps(table), encoding="utf-8")
        key = content_fingerprint(registry)
        source.write_text(PROBE + "# edited after the copy was made\n", encoding="utf-8")
        assert content_fingerprint(registry) != key

        cache = ToolSchemaCache(registry, tmp_path / "cache", shipped=shipped)
        assert cache.of(tool) == (tool.input_schema(), tool.output_schema())
        assert cache.from_shipped is False
    finally:
        sys.modules.pop("schema_cache_stale_models", None)


def test_the_command_line_writes_the_shipped_table_of_this_catalog() -> None:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "service", "docs", "tool-schemas"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    registry = build_registry()
    assert table["key"] == content_fingerprint(registry)
    assert set(table["tools"]) == set(registry.names())


def test_two_threads_asking_at_once_generate_the_table_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first tools/list builds the tools in a worker thread (service/protocol/tool_lists.py) while
    the loop may ask for one tool's schemas (the 2026 HTTP entry's header check): both generated
    the whole table and wrote it through the same temporary file. Now one does; the other waits."""
    specs = [spec for spec in build_registry() if spec.domain == "notes"][:4]
    cache = ToolSchemaCache(Registry(specs), tmp_path / "cache", shipped=tmp_path / "none.json")
    asking = threading.Event()
    generated: list[str] = []
    real = schema_cache.generate

    def slow_generate(spec: Any) -> Any:
        if not generated:  # the first thread's first tool: the second thread asks meanwhile
            asking.wait(5)
            time.sleep(0.2)
        generated.append(spec.name)
        return real(spec)

    monkeypatch.setattr(schema_cache, "generate", slow_generate)

    def second() -> None:
        asking.set()
        cache.of(specs[1])

    first = threading.Thread(target=cache.of, args=(specs[0],))
    other = threading.Thread(target=second)
    first.start()
    other.start()
    first.join(10)
    other.join(10)
    assert sorted(generated) == sorted(spec.name for spec in specs)
    assert cache.of(specs[2]) == (specs[2].input_schema(), specs[2].output_schema())
