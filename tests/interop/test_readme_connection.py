"""The README's "Connecting clients" section, run as shown against a real `vaultgate serve`.

Everything is read from README.md, so the page cannot drift from what works: the Inspector CLI
commands (the `npx` package spec swapped for the pinned install, which must be the version the
README names; the endpoint swapped for the test server's), the Python and TypeScript snippets, and
the Claude Desktop stdio entry. The Claude Code and Cursor entries cannot be run here; they must
name the same endpoint as the rest.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.interop import tooling

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

README = tooling.REPO / "README.md"
ENDPOINT = "http://127.0.0.1:8765/mcp"  # what `vaultgate serve` prints with the default port
INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Connecting clients", 1)[1].split("\n## ", 1)[0]


def blocks(language: str) -> list[str]:
    return [body for lang, body in re.findall(r"```(\w+)\n(.*?)```", section(), re.S) if lang == language]


def shell_commands() -> list[list[str]]:
    commands = []
    for body in blocks("bash"):
        for line in body.replace("\\\n", " ").splitlines():
            if line.strip():
                commands.append(shlex.split(line, comments=True))
    return commands


def inspector_commands() -> list[list[str]]:
    return [c for c in shell_commands() if c[:1] == ["npx"] and c[1].startswith(INSPECTOR_PACKAGE)]


def test_the_section_names_one_endpoint_and_the_pinned_inspector() -> None:
    urls = set(re.findall(r"https?://[^\s\"'`)]+", section()))
    assert urls == {ENDPOINT}, urls
    pinned = f"{INSPECTOR_PACKAGE}@{tooling.pins()[INSPECTOR_PACKAGE]}"
    assert inspector_commands() and {c[1] for c in inspector_commands()} == {pinned}
    assert ["claude", "mcp", "add", "--transport", "http", "vaultgate", ENDPOINT] in shell_commands()


def test_the_inspector_cli_commands_work_as_shown(served: tooling.Served) -> None:
    cli = [c for c in inspector_commands() if "--cli" in c]
    assert len(cli) >= 3, cli
    seen: set[str] = set()
    for command in cli:
        args = [served.url if a == ENDPOINT else a for a in command[2:]]
        done = tooling.node(str(tooling.INSPECTOR), *args)
        result: dict[str, Any] = json.loads(done.stdout)
        method = command[command.index("--method") + 1]
        if method == "tools/list":
            assert done.returncode == 0, done.stderr
            assert "read_note" in [t["name"] for t in result["tools"]]
            assert done.stderr.strip() == "", done.stderr  # no schema-portability findings either
            seen.add("list")
        elif done.returncode == 0:
            assert not result.get("isError") and result["structuredContent"]["title"] == "Welcome", result
            seen.add("call")
        else:
            assert done.returncode == 5, done.stderr  # the Inspector's "tool returned isError"
            error = result["structuredContent"]["error"]
            assert error["code"] == "note_not_found" and error["hint"], error
            seen.add("error")
    assert seen == {"list", "call", "error"}


def test_the_python_snippet_works_as_shown(served: tooling.Served) -> None:
    [code] = blocks("python")
    done = subprocess.run(
        [sys.executable, "-c", code.replace(ENDPOINT, served.url)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Welcome"


def test_the_typescript_snippet_works_as_shown(served: tooling.Served, tmp_path: Path) -> None:
    [code] = blocks("js")
    (tmp_path / "node_modules").symlink_to(tooling.MODULES, target_is_directory=True)
    script = tmp_path / "snippet.mjs"
    script.write_text(code.replace(ENDPOINT, served.url), encoding="utf-8")
    done = tooling.node(str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Welcome"


def test_the_claude_desktop_stdio_entry_works_as_shown(served: tooling.Served) -> None:
    entries = [json.loads(b)["mcpServers"]["vaultgate"] for b in blocks("json") if '"command"' in b]
    [entry] = entries
    assert entry["command"].endswith("/.venv/bin/vaultgate")  # the console script, i.e. `python -m service`
    args = [str(served.root) if a.endswith("MyVault") else a for a in entry["args"]]
    env = {k: v for k, v in tooling.server_env().items() if k == "PYTHONPATH"}
    plan = {"transport": "stdio", "command": sys.executable, "args": ["-m", "service", *args], "env": env}
    report = tooling.ts_client({**plan, "calls": [{"name": "read_note", "arguments": {"path": "Welcome"}}]})
    [outcome] = report["results"]
    assert outcome["result"]["structuredContent"]["title"] == "Welcome"
