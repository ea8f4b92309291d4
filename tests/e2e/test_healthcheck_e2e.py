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


def test_healthcheck_of_a_jwt_config_needs_no_secret_in_the_shell(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """A `jwt` server started with its secret in its own environment, checked from a shell
    without it: /healthz needs no token, so the check reads only `[http]` (it answered "invalid
    configuration: auth.mode = 'jwt' needs auth.jwt_secret"). A bad port is still reported, not a
    traceback."""
    root = make_vault()
    port = free_port()
    config = tmp_path / "vaultgate.toml"
    config.write_text(
        f'[auth]\nmode = "jwt"\n\n[http]\nport = {port}\n\n[[vaults]]\nid = "main"\npath = "{root}"\n',
        encoding="utf-8",
    )
    with serve(str(config), env={"VAULTGATE_AUTH__JWT_SECRET": "s" * 40}):
        checked = run("healthcheck", str(config))
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.strip() == f"http://127.0.0.1:{port}/healthz: ok"
        by_env = run("healthcheck", env={"VAULTGATE_CONFIG": str(config)})
        assert by_env.returncode == 0, by_env.stderr
    wrong = run("healthcheck", str(config), env={"VAULTGATE_HTTP__PORT": "eighty"})
    assert wrong.returncode == 1 and "http.port" in wrong.stderr and "Traceback" not in wrong.stderr
