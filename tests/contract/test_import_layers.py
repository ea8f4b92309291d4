"""The package's import structure, pinned: the file tree is the dependency diagram.

Every `service` module belongs to one layer of `LAYERS` (lowest first, as docs/architecture.md
draws it) and may import only from its own layer or the ones below. Imports are read from the
source with `ast`, including those under `if TYPE_CHECKING:` and inside functions, so a type-only
or lazy import counts as much as a run-time one. The test fails on any import circle between
modules and on any upward import not listed in `ALLOWED_UPWARD` (each with its reason).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[2] / "service"

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "service.types",
        "service.errors",
        "service.folders",
        "service._version",
        "service._deferred_models",
        "service.gcpause",
        "service.query_images",
        "service.heap",
        "service.malloc",
        "service.collector",
        "service.activity",
        "service.tasks",
        "service.numpy_lazy",
        "service.json_depth",
        "service.js_replace",
    ),
    ("service.settings", "service.storage", "service.dates", "service.budget"),
    (
        "service.markdown",
        "service.retrieval",
        "service.bases",
        "service.dataview",
        "service.vault",
        "service.embeddings",
        "service.obsidian",
        "service.rerank",
        "service.bridges",
        "service.ocr",
    ),
    ("service.graph", "service.policy", "service.obs", "service.security"),
    ("service.indexer",),
    ("service.semantic",),
    ("service.plans",),
    ("service.memory",),
    ("service.plane",),
    ("service.services",),
    ("service.tools", "service.catalog_doc"),
    ("service.dispatch",),
    ("service.protocol",),
    ("service.http",),
    ("service.app",),
    ("service.serve", "service.serve_stdio", "service.docs_tables", "service.__main__"),
)

ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    # The HTTP tier's assembly reads values off the application and hands them to the edge,
    # routes and transport, which are built from values only; it is the top of the HTTP tier.
    ("service.http.asgi", "service.app"): "assembles the Starlette app from a VaultgateApp",
}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in SERVICE.rglob("*.py"):
        parts = path.relative_to(SERVICE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The module that defines `name` (a module, or a name inside one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(name: str, path: Path) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            owner = _owner(target) if target.startswith("service") else None
            if owner is not None and owner != name:
                yield owner


EDGES = {name: set(_imports(name, path)) for name, path in MODULES.items()}


def _layer(name: str) -> int:
    matches = [
        (len(prefix), i)
        for i, group in enumerate(LAYERS)
        for prefix in group
        if name == prefix or name.startswith(prefix + ".")
    ]
    assert matches, f"{name} is in no layer: add its package to LAYERS (and to docs/architecture.md)"
    return max(matches)[1]


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in EDGES:
        if root in index:
            continue
        work = [(root, iter(sorted(EDGES[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(EDGES.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        _layer(name)


def test_no_import_circles() -> None:
    assert _cycles() == []


def test_imports_point_down_the_layers() -> None:
    upward = sorted((src, dst) for src, targets in EDGES.items() for dst in targets if _layer(dst) > _layer(src))
    unexpected = [edge for edge in upward if edge not in ALLOWED_UPWARD]
    assert not unexpected, f"imports that run up the layers: {unexpected}"
    assert len(upward) <= 3


def test_the_check_sees_type_only_and_lazy_imports() -> None:
    """The reader counts what mypy and a lazy call see, not only top-level imports."""
    assert "service.app" in EDGES["service.http.asgi"]
    lazy = [name for name, path in MODULES.items() if "    from service." in path.read_text(encoding="utf-8")]
    assert lazy, "no indented (type-only or lazy) import found: the fixture of this test is stale"
    for name in lazy:
        assert EDGES[name], name


MAX_LINES = 450  # "most modules 100-250 lines, split past ~400": one concept per module


def test_no_module_holds_several_concepts_by_size() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    assert not {name: n for name, n in sizes.items() if n > MAX_LINES}
