"""The MCP SDK's packages without their re-exports, for a server process that starts against a clock.

`import mcp.server.lowlevel.server` first runs `mcp/__init__.py` and `mcp/server/__init__.py`,
which re-export the SDK's conveniences: the client (`mcp.client`: sessions, the stdio and
Streamable HTTP clients, httpx2) and the high-level `MCPServer`. A server needs none of them,
yet they took ~60 ms of a `vaultgate stdio` start on a small machine (docs/benchmarks.md,
"stdio start-up"). `mcp_types/__init__.py` defines every protocol model of both eras (~90 ms);
a stdio start's first plain calls use none of them (`service.protocol.fast_calls`), while the
modules on their path import the package at module level (`import mcp_types as types`) and
read its names only when they run. `skip_package_inits()` registers those packages as bare
packages (their folders, no code run), so importing a submodule (`mcp_types.version`) costs only
that submodule. Nothing is lost: the first time anyone reads a name of such a package (`from mcp
import Client`, `mcp.server.Server`, `types.ErrorData`), its real `__init__.py` runs in place
and the name is there, as it would have been. `prometheus_client` is registered the same way
(`OTHER_BARE_PACKAGES`): its `__init__` imports the exposition (an HTTP server, `urllib.request`,
~12 ms) and the process-wide collectors, while the app's metrics use only the series classes
and a registry of their own (`service.obs.metrics`). Its modules import their siblings by
`from . import values`, which reads the name from the package first: with `submodules_first` a
name that is a submodule of the package imports that submodule, not the package's `__init__`.

Only the entry point calls this, before anything imports the SDK; a process that imported the
SDK already (a test, a host embedding the app) keeps its packages as they are.

`no_uvicorn_for_sse()` (`vaultgate stdio` only): the SDK's server module imports its Streamable
HTTP transport, which imports `sse_starlette`, whose module patches uvicorn's `Server.handle_exit`
for a graceful drain at import (`from uvicorn.main import Server`, skipped when uvicorn is not
installed). That loaded uvicorn, click, uvicorn's supervisors, logging.config and socketserver (39
modules; ~4 MB of RSS in an interpreter that imports the SDK's server, of a settled 10k-note stdio
server's ~97 MB: issue 39) into a process that runs no uvicorn server.
A finder refuses that one import of uvicorn, while `sse_starlette.sse` runs, as if it were not
installed; it goes away at the first import of uvicorn by anyone, so any later one imports it.
"""

from __future__ import annotations

import importlib.util
import sys
import types

# The SDK packages whose `__init__` re-exports what a server never uses (parents first).
BARE_PACKAGES = ("mcp", "mcp.server", "mcp_types")
# Other packages whose `__init__` loads what a stdio start's first call never uses.
OTHER_BARE_PACKAGES = ("prometheus_client",)


def for_stdio() -> None:
    """What `vaultgate stdio` goes without, set first by its command: the SDK's client and
    `MCPServer`, the metrics' exposition (`skip_package_inits`), uvicorn (`no_uvicorn_for_sse`)."""
    skip_package_inits()
    skip_package_inits(OTHER_BARE_PACKAGES, submodules_first=True)
    no_uvicorn_for_sse()


def no_uvicorn_for_sse() -> bool:
    """Keep `sse_starlette` from importing uvicorn (above), unless either is imported already;
    whether the finder was installed."""
    if "uvicorn" in sys.modules or "sse_starlette.sse" in sys.modules:
        return False
    sys.meta_path.insert(0, _NoUvicornForSse())
    return True


class _NoUvicornForSse:
    """A meta path finder that answers the first lookup of `uvicorn` and leaves: not installed, when
    `sse_starlette.sse` is being imported; otherwise the usual finders go on."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name != "uvicorn":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        sse = sys.modules.get("sse_starlette.sse")
        if sse is not None and getattr(sse.__spec__, "_initializing", False):
            raise ModuleNotFoundError("uvicorn is not loaded by a stdio process", name=name)
        return None


def skip_package_inits(names: tuple[str, ...] = BARE_PACKAGES, *, submodules_first: bool = False) -> bool:
    """Register each package of `names` bare unless already imported; False when none was
    (`submodules_first`: reading a name that is a submodule imports just that submodule)."""
    done = False
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return done
        sys.modules[name] = _bare(name, spec, submodules_first)
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
        done = True
    return done


def _bare(name: str, spec: importlib.machinery.ModuleSpec, submodules_first: bool = False) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__spec__ = spec
    module.__path__ = list(spec.submodule_search_locations or ())
    module.__file__ = spec.origin
    module.__loader__ = spec.loader
    module.__package__ = name

    def __getattr__(attr: str) -> object:  # noqa: N807 - the module-level hook (PEP 562)
        if attr.startswith("__"):
            raise AttributeError(attr)
        if submodules_first and importlib.util.find_spec(f"{name}.{attr}") is not None:
            return importlib.import_module(f"{name}.{attr}")  # binds it on the package too
        del module.__dict__["__getattr__"]  # runs once: the real `__init__` defines the names
        assert spec.loader is not None
        spec.loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = __getattr__
    return module
