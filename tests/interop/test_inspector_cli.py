"""The MCP Inspector CLI (pinned) against `vaultgate serve`, non-interactively.

The Inspector validates `structuredContent` against `outputSchema` for failed calls too; a tool
error must reach its output as the server's code, message and hint (exit status 5, "the tool
returned isError"), not as a schema complaint. Its schema-portability check must find nothing in
`tools/list`, in every tools/list mode.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest

from service.settings.policy import ToolFacadeSettings
from tests.interop import tooling

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

TOOL_ERROR_EXIT = 5  # the Inspector CLI's exit status for a result with isError: true

# (--tool-arg pairs for read_note, expected error code or None for a success)
CASES: list[tuple[list[str], str | None]] = [
    (["path=Welcome.md"], None),
    (["path=No such note.md"], "note_not_found"),
    (["path=Welcome.md", "bogus=1"], "validation_error"),
    ([f"path={tooling.SECRET_NOTE}"], "acl_denied"),
]


def call(target: list[str], tool_args: list[str]) -> tuple[int, dict[str, Any], str]:
    """`target`: a URL and options, or options then `--` and the server command (kept last)."""
    server = target[target.index("--") :] if "--" in target else []
    options = target[: len(target) - len(server)]
    method = ["--method", "tools/call", "--tool-name", "read_note", "--tool-arg", *tool_args]
    done = tooling.inspector(*options, *method, *server)
    assert done.stdout.strip(), f"no result printed (exit {done.returncode}):\n{done.stderr}"
    return done.returncode, json.loads(done.stdout), done.stderr


def check_cases(target: list[str]) -> None:
    for tool_args, code in CASES:
        status, result, stderr = call(target, tool_args)
        assert "schema" not in stderr.lower(), stderr
        if code is None:
            assert status == 0, stderr
            assert result["structuredContent"]["title"] == "Welcome"
            continue
        assert status == TOOL_ERROR_EXIT, (tool_args, stderr)
        assert result["isError"] is True
        error = result["structuredContent"]["error"]
        assert error["code"] == code, error
        assert error["message"] and error["hint"], error
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_inspector_cli_shows_tool_errors_over_streamable_http(served: tooling.Served) -> None:
    check_cases([served.url, "--transport", "http"])


def test_inspector_cli_shows_tool_errors_over_stdio(node_tooling: None, tmp_path: Path) -> None:
    root = tooling.vault_copy(tmp_path)
    command, args = tooling.stdio_command(root)
    env = [f"{k}={v}" for k, v in tooling.server_env().items() if k.startswith("VAULTGATE_") or k == "PYTHONPATH"]
    check_cases([*(x for pair in env for x in ("-e", pair)), "--", command, *args])


@pytest.mark.parametrize("mode", typing.get_args(ToolFacadeSettings.model_fields["mode"].annotation))
def test_inspector_schema_portability_check_finds_nothing(node_tooling: None, tmp_path: Path, mode: str) -> None:
    root = tooling.vault_copy(tmp_path)
    with tooling.serve(root, tmp_path / "serve.log", {"VAULTGATE_TOOL_FACADE__MODE": mode}) as server:
        done = tooling.inspector(server.url, "--transport", "http", "--method", "tools/list", "--strict")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tools"]
    assert done.stderr.strip() == "", done.stderr
