"""`vaultgate healthcheck` (the container's HEALTHCHECK) asks /healthz on the configured port."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_cli import run, serve


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_healthcheck_follows_the_port_from_the_environment_and_from_a_config_file(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault()
    with serve(str(root), "--port", "0") as (_, url):
        port = url.split(":")[2].split("/")[0]
        healthy = run("healthcheck", env={"VAULTGATE_HTTP__PORT": port, "VAULTGATE_HTTP__HOST": "0.0.0.0"})
        assert healthy.returncode == 0, healthy.stderr
        assert healthy.stdout.strip() == f"http://127.0.0.1:{port}/healthz: ok"
        config = tmp_path / "vaultgate.toml"
        config.write_text(f'[http]\nport = {port}\n\n[[vaults]]\nid = "main"\npath = "{root}"\n', encoding="utf-8")
        assert run("healthcheck", str(config)).returncode == 0
    closed = run("healthcheck", env={"VAULTGATE_HTTP__PORT": str(free_port())})
    assert closed.returncode == 1 and "does not answer" in closed.stderr
