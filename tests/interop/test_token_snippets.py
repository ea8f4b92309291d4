"""docs/security.md's "Sending a token" snippets, run as shown (Python SDK and TypeScript SDK)
against `vaultgate serve` with `auth.mode = "jwt"` and a token minted by `vaultgate token mint`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop import tooling
from tests.interop.test_readme_connection import ENDPOINT

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

PAGE = tooling.REPO / "docs" / "security.md"
SECRET = "a-test-secret-that-is-long-enough-for-hs256-0123456789"


def blocks(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8").split("## Sending a token", 1)[1].split("\n## ", 1)[0]
    return [body for lang, body in re.findall(r"```(\w+)\n(.*?)```", text, re.S) if lang == language]


def run_python(code: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "VAULTGATE_TOKEN": token}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def jwt_served(node_tooling: None, tmp_path: Path) -> Iterator[tuple[tooling.Served, str]]:
    env = {"VAULTGATE_AUTH__MODE": "jwt", "VAULTGATE_AUTH__JWT_SECRET": SECRET}
    minted = subprocess.run(
        [sys.executable, "-m", "service", "token", "mint", "--secret-env", "VAULTGATE_AUTH__JWT_SECRET"]
        + ["--sub", "snippet", "--scope", "read:vault", "--vault", "main"],
        capture_output=True,
        text=True,
        timeout=60,
        env=tooling.server_env(env),
    )
    assert minted.returncode == 0, minted.stderr
    with tooling.serve(tooling.vault_copy(tmp_path), tmp_path / "serve.log", env) as server:
        yield server, minted.stdout.strip()


def test_the_python_token_snippet_works_as_shown(jwt_served: tuple[tooling.Served, str]) -> None:
    served, token = jwt_served
    [code] = blocks("python")
    code = code.replace(ENDPOINT, served.url)
    done = run_python(code, token)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Welcome"
    refused = run_python(code, "not-a-token")
    assert refused.returncode != 0  # the header is what lets it in


def test_the_typescript_token_snippet_works_as_shown(jwt_served: tuple[tooling.Served, str], tmp_path: Path) -> None:
    served, token = jwt_served
    [code] = blocks("js")
    (tmp_path / "node_modules").symlink_to(tooling.MODULES, target_is_directory=True)
    script = tmp_path / "snippet.mjs"
    script.write_text(code.replace(ENDPOINT, served.url), encoding="utf-8")
    done = subprocess.run(
        [str(tooling.NODE), str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "VAULTGATE_TOKEN": token},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Welcome"
