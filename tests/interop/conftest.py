"""Fixtures of the interoperability tests: the pinned Node tooling (installed on first use) and
`vaultgate serve` on a copy of the sample vault with an ACL that denies `Private/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop import tooling


@pytest.fixture(scope="session")
def node_tooling() -> None:
    """The pinned TypeScript SDK and MCP Inspector; skips (saying why) only when npm is absent."""
    reason = tooling.missing_npm_reason()
    if reason is not None:
        pytest.skip(reason)
    tooling.ensure_installed()


@pytest.fixture
def served(node_tooling: None, tmp_path: Path) -> Iterator[tooling.Served]:
    with tooling.serve(tooling.vault_copy(tmp_path), tmp_path / "serve.log") as server:
        yield server
