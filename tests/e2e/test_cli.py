"""The command line as a user runs it: real subprocesses, bounded waits on their output."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client

from tests.e2e.served import endpoint_of

SECRET = "s3cret-value-that-is-long-enough-0123456789"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@contextmanager
def serve(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        url = endpoint_of(proc)
        assert url, proc.stderr.read() if proc.stderr else "no output"
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_version_prints_the_version_and_the_runtime() -> None:
    from service._version import VERSION

    out = run("version")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"vaultgate {VERSION}"
    assert lines[1].startswith(f"Python {sys.version_info.major}.{sys.version_info.minor}.")
    assert any(line.startswith("SQLite 3.") for line in lines)
    assert any(line.startswith("sqlite-vec ") for line in lines)
    assert any(line.startswith("MCP SDK ") and line[8:9].isdigit() for line in lines)


def test_the_config_path_can_come_from_vaultgate_config(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    vault = make_vault(name="envvault")
    config = tmp_path / "from-env.toml"
    config.write_text(f'[[vaults]]\nid = "fromenv"\npath = "{vault}"\n')
    shown = run("config", "show", env={"VAULTGATE_CONFIG": str(config)})
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["vaults"][0]["id"] == "fromenv"
    valid = run("config", "validate", env={"VAULTGATE_CONFIG": str(config)})
    assert valid.returncode == 0 and "fromenv" in valid.stdout
    explicit = run("config", "validate", str(vault), env={"VAULTGATE_CONFIG": str(config)})
    assert explicit.returncode == 0 and "main" in explicit.stdout  # a PATH given wins over the environment
    missing = run("config", "show", env={"VAULTGATE_CONFIG": ""})
    assert missing.returncode == 1 and "VAULTGATE_CONFIG" in missing.stderr and "Traceback" not in missing.stderr
    wrong = run("config", "validate", env={"VAULTGATE_CONFIG": str(tmp_path / "nope.toml")})
    assert wrong.returncode == 1 and "nope.toml" in wrong.stderr


async def test_serve_reads_vaultgate_config_when_path_is_omitted(
    tmp_path: Path, make_vault: Callable[..., Path]
) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(f'[[vaults]]\nid = "fromenv"\npath = "{make_vault(name="served")}"\n')
    with serve("--port", "0", env={"VAULTGATE_CONFIG": str(config)}) as (_, url):
        async with Client(url, mode="legacy") as c:
            listed = await c.call_tool("list_vaults", {})
            assert not listed.is_error and "fromenv" in str(listed.structured_content)


def test_the_command_line_builds_pydantic_models_on_first_use() -> None:
    probe = (
        "import contextlib, io\n"
        "from service.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['version'])\n"
        "import mcp_types\n"
        "print(mcp_types.CallToolResult.__pydantic_complete__)\n"
        "mcp_types.CallToolResult.model_validate({'content': []})\n"
        "print(mcp_types.CallToolResult.__pydantic_complete__)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"], out.stderr


def test_config_show_redacts_secrets(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    out = run("config", "show", str(root), env={"VAULTGATE_AUTH__JWT_SECRET": SECRET, "VAULTGATE_HTTP__PORT": "9999"})
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["http"]["port"] == 9999 and data["vaults"][0]["id"] == "main"
    assert SECRET not in out.stdout and SECRET not in out.stderr
    assert data["auth"]["jwt_secret"] == "**********"


def test_config_validate_reports_errors_readably(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[vaults]]\nid = "x"\npath = "missing-folder"\n[http]\nport = "not a number"\n')
    out = run("config", "validate", str(bad))
    assert out.returncode == 1
    assert "http.port" in out.stderr and "Traceback" not in out.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[[vaults]\n")
    out = run("config", "validate", str(broken))
    assert out.returncode == 1 and "not valid TOML" in out.stderr
    assert run("config", "validate", str(tmp_path / "nope")).returncode == 1


def test_two_vaults_and_the_default_vault_rule(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    a, b = make_vault(name="alpha"), make_vault({"Only-b.md": "b\n"}, name="beta")
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "a"\npath = "{a}"\n[[vaults]]\nid = "b"\npath = "{b}"\n')
    out = run("config", "validate", str(config), env={"VAULTGATE_DEFAULT_VAULT": "b"})
    assert out.returncode == 0 and "a, b" in out.stdout
    shown = json.loads(run("config", "show", str(config), env={"VAULTGATE_DEFAULT_VAULT": "b"}).stdout)
    assert shown["default_vault"] == "b"
    assert run("config", "validate", str(config), env={"VAULTGATE_DEFAULT_VAULT": "zzz"}).returncode == 1


async def test_default_vault_from_the_environment_is_used_by_tools(
    tmp_path: Path, make_vault: Callable[..., Path]
) -> None:
    a, b = make_vault(name="alpha"), make_vault({"Only-b.md": "b\n"}, name="beta")
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "a"\npath = "{a}"\n[[vaults]]\nid = "b"\npath = "{b}"\n')
    with serve(str(config), "--port", "0", env={"VAULTGATE_DEFAULT_VAULT": "b"}) as (_, url):
        async with Client(url, mode="legacy") as c:
            only_b = await c.call_tool("read_note", {"path": "Only-b"})
            assert not only_b.is_error
            welcome = await c.call_tool("read_note", {"path": "Welcome", "vault": "a"})
            assert not welcome.is_error
            missing = await c.call_tool("read_note", {"path": "Welcome", "vault": "zzz"})
            assert missing.is_error and missing.structured_content is not None
            assert missing.structured_content["error"]["code"] == "vault_not_found"


def test_serve_refuses_a_public_host_without_auth(make_vault: Callable[..., Path]) -> None:
    out = run("serve", str(make_vault()), "--host", "0.0.0.0", "--port", "0")
    assert out.returncode == 1
    assert "refusing to serve without authentication" in out.stderr


def test_serve_on_a_port_in_use_exits_1_readably_without_printing_a_url(make_vault: Callable[..., Path]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run("serve", str(make_vault()), "--port", str(port))
    assert out.returncode == 1
    assert "MCP endpoint:" not in out.stdout
    assert "address already in use" in out.stderr and "did not start" in out.stderr
    # The last line says what to do, not only "see the log above".
    last = out.stderr.strip().splitlines()[-1]
    assert f"port {port} on 127.0.0.1 is in use" in last and "--port" in last, last
    assert "Traceback" not in out.stderr


async def test_serve_prints_the_url_answers_health_and_stops_on_sigterm(make_vault: Callable[..., Path]) -> None:
    with serve(str(make_vault()), "--port", "0") as (proc, url):
        base = url.rsplit("/mcp", 1)[0]
        async with httpx2.AsyncClient() as http:
            assert (await http.get(f"{base}/healthz")).status_code == 200
            ready = (await http.get(f"{base}/readyz")).json()
            assert "main" in ready["vaults"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("limit", ["2048"])
async def test_governor_limit_comes_from_the_environment(make_vault: Callable[..., Path], limit: str) -> None:
    root = make_vault({"big.md": "x" * 10_000 + "\n", "small.md": "ok\n"})
    with serve(str(root), "--port", "0", env={"VAULTGATE_GOVERNOR__MAX_RESPONSE_BYTES": limit}) as (_, url):
        async with Client(url, mode="legacy") as c:
            big = await c.call_tool("read_note", {"path": "big"})
            assert big.is_error and big.structured_content is not None
            error = big.structured_content["error"]
            assert error["code"] == "overflow" and error["details"]["limit"] == int(limit) and error["hint"]
            part = await c.call_tool("read_note", {"path": "big", "start_line": 1, "end_line": 1})
            assert part.is_error  # one 10 KB line is still too big: the hint says to narrow further
            assert not (await c.call_tool("read_note", {"path": "small"})).is_error


@pytest.mark.parametrize("given", [None, True, False])
def test_preloading_vectors_defaults_by_command_and_a_set_value_stays(
    make_vault: Callable[..., Path], given: bool | None
) -> None:
    """`[embeddings] preload_vectors` unset: `serve` preloads, `stdio` does not; set, it is kept."""
    from service.__main__ import _for_transport
    from service.settings import load_settings

    embeddings = {} if given is None else {"preload_vectors": given}
    settings = load_settings(make_vault({"a.md": "# a\n"}), embeddings=embeddings)
    assert settings.embeddings.preload_vectors is given
    for preload in (True, False):
        got = _for_transport(settings, preload_vectors=preload).embeddings.preload_vectors
        assert got is (preload if given is None else given)


def test_config_validate_lists_every_problem_in_one_run(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    """A bad key does not hide the cross-section rules (`default_vault`) nor a missing folder."""
    root = make_vault()
    config = tmp_path / "vaultgate.toml"
    config.write_text(
        f'default_vault = "zzz"\nbogus = 1\n[[vaults]]\nid = "a"\npath = "{root}"\n'
        '[[vaults]]\nid = "b"\npath = "missing-folder"\n[http]\nport = "x"\n'
    )
    out = run("config", "validate", str(config))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "bogus: Extra inputs are not permitted" in out.stderr
    assert "http.port" in out.stderr
    assert "default_vault 'zzz' is not a configured vault id" in out.stderr
    assert "vault 'b': folder" in out.stderr and "does not exist" in out.stderr


def test_serving_a_note_says_it_is_not_a_folder(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"some/note.md": "# A note\n\nNot = a config [\n"})
    for command in ("serve", "stdio", "config"):
        args = ("config", "validate") if command == "config" else (command,)
        out = run(*args, str(root / "some" / "note.md"))
        assert out.returncode == 1, out.stderr
        assert "not a folder" in out.stderr and "not valid TOML" not in out.stderr


def test_a_closed_stdout_ends_the_command_quietly(make_vault: Callable[..., Path]) -> None:
    """`vaultgate config show | head`: the reader went away; no "cannot start" message."""
    root = make_vault()
    for args in (("config", "show", str(root)), ("docs", "tools")):
        read_end, write_end = os.pipe()
        os.close(read_end)  # closed before the command writes: every write meets a broken pipe
        try:
            done = subprocess.run(
                [sys.executable, "-m", "service", *args],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(write_end)
        assert done.returncode == 141 and done.stderr == "", done.stderr
