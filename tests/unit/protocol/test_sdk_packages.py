"""The SDK's packages registered bare (`service.protocol.sdk_packages`): submodules import without
the packages' re-exports, and the first read of a re-exported name runs the real `__init__`.
Each case runs in a fresh interpreter: this process imported the SDK long ago."""

from __future__ import annotations

import json
import subprocess
import sys


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
