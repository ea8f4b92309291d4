"""The SDK's packages registered bare (`service.protocol.sdk_packages`): submodules import without
the packages' re-exports, and the first read of a re-exported name runs the real `__init__`.
Each case runs in a fresh interpreter: this process imported the SDK long ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def _run(code: str) -> object:
    prelude = "import json, sys\nfrom service.protocol.sdk_packages import skip_package_inits\n"
    out = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_a_server_module_imports_without_the_sdk_client_or_mcpserver() -> None:
    loaded = _run(
        "skip_package_inits()\n"
        "import mcp.server.lowlevel.server, mcp.shared.exceptions\n"
        "print(json.dumps([m for m in ('mcp.client', 'mcp.server.mcpserver') if m in sys.modules]))\n"
    )
    assert loaded == []


def test_the_protocol_models_load_at_the_first_read_of_one_of_their_names() -> None:
    loaded = _run(
        "skip_package_inits()\n"
        "import mcp_types as types\n"
        "from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS\n"
        "before = 'mcp_types._types' in sys.modules\n"
        "error = types.ErrorData(code=1, message='m')\n"
        "after = 'mcp_types._types' in sys.modules\n"
        "print(json.dumps([before, after, error.code, bool(HANDSHAKE_PROTOCOL_VERSIONS)]))\n"
    )
    assert loaded == [False, True, 1, True]


def test_a_re_exported_name_is_there_at_its_first_read() -> None:
    names = _run(
        "skip_package_inits()\n"
        "import mcp.shared.exceptions\n"
        "from mcp import Client\n"
        "from mcp.server import MCPServer, Server\n"
        "import mcp.server.lowlevel.server as low\n"
        "print(json.dumps([Client.__name__, MCPServer.__name__, Server is low.Server]))\n"
    )
    assert names == ["Client", "MCPServer", True]


def test_packages_already_imported_are_left_as_they_are() -> None:
    kept = _run(
        "import mcp\n"
        "before = sys.modules['mcp']\n"
        "print(json.dumps([skip_package_inits(), sys.modules['mcp'] is before, hasattr(mcp, 'Client')]))\n"
    )
    assert kept == [False, True, True]


def test_the_metrics_series_import_without_the_exposition_and_render_as_before() -> None:
    seen = _run(
        "from service.protocol.sdk_packages import OTHER_BARE_PACKAGES\n"
        "skip_package_inits(OTHER_BARE_PACKAGES, submodules_first=True)\n"
        "from service.obs.metrics import Metrics, content_type\n"
        "metrics = Metrics()\n"
        "before = [m for m in ('prometheus_client.exposition', 'http.server') if m in sys.modules]\n"
        "metrics.calls.labels(vault='v', tool='read_note', status='ok').inc()\n"
        "text = metrics.render().decode()\n"
        "import prometheus_client\n"
        "print(json.dumps([before, 'vaultgate_tool_calls_total{' in text, content_type().startswith('text/plain'),"
        " prometheus_client.Counter is prometheus_client.metrics.Counter]))\n"
    )
    assert seen == [[], True, True, True]


def test_the_sdk_s_server_imports_without_uvicorn_which_imports_later_as_ever() -> None:
    seen = _run(
        "from service.protocol.sdk_packages import no_uvicorn_for_sse\n"
        "skip_package_inits()\n"
        "installed = no_uvicorn_for_sse()\n"
        "import mcp.server.lowlevel.server\n"
        "from sse_starlette import EventSourceResponse\n"
        "before = [m for m in ('sse_starlette.sse', 'uvicorn', 'uvicorn.main', 'click') if m in sys.modules]\n"
        "import uvicorn.main\n"
        "finders = [type(f).__name__ for f in sys.meta_path]\n"
        "server = sys.modules['uvicorn.main'].Server\n"
        "print(json.dumps([installed, before, EventSourceResponse.__name__, server.__name__,"
        " '_NoUvicornForSse' in finders, no_uvicorn_for_sse()]))\n"
    )
    assert seen == [True, ["sse_starlette.sse"], "EventSourceResponse", "Server", False, False]


# `vaultgate stdio` as its console script runs it, asked what only the SDK's server answers (a
# resource, a prompt) and a search, then stdin closed; what it loaded is printed after it ended.
_STDIO = """
import json, sys
from service.__main__ import main
sys.argv = ["vaultgate", "stdio", sys.argv[1]]
code = main()
loaded = [m for m in ("mcp.server.lowlevel.server", "sse_starlette.sse", "uvicorn", "click") if m in sys.modules]
print("loaded", json.dumps([code, loaded]), file=sys.stderr, flush=True)
"""


def test_a_stdio_server_answers_through_the_sdk_without_loading_uvicorn(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n\nhello\n"})
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"id": 1, "method": "initialize", "params": init},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "resources/read", "params": {"uri": "vault://main/Welcome.md"}},
        {"id": 3, "method": "prompts/get", "params": {"name": "summarize_note", "arguments": {"path": "Welcome"}}},
        {"id": 4, "method": "tools/call", "params": {"name": "search_text", "arguments": {"query": "hello"}}},
    ]
    data = b"".join(json.dumps({"jsonrpc": "2.0", **m}).encode() + b"\n" for m in messages)
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    done = subprocess.run(
        [sys.executable, "-c", _STDIO, str(root)], input=data, env=env, capture_output=True, timeout=120
    )
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3, 4] and all("result" in a for a in answers.values()), done.stdout[-2000:]
    lines = done.stderr.decode().splitlines()
    (loaded,) = [json.loads(line.split(" ", 1)[1]) for line in lines if line.startswith("loaded ")] or [lines[-20:]]
    assert loaded == [0, ["mcp.server.lowlevel.server", "sse_starlette.sse"]]
