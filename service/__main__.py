"""Command line: `vaultgate serve|stdio|config|token|confirm|docs|version|healthcheck …` (also
`python -m service`).

Exit codes: 0 success (also after Ctrl-C or SIGTERM), 1 configuration or start-up error (every
problem printed readably on stderr, no traceback), 2 usage, 141 (as a process killed by SIGPIPE)
when the reader of stdout went away (`vaultgate config show | head`), silently.
`vaultgate --version` prints the version.
"""

from __future__ import annotations

import json
import os
import sys

# Module level imports stay light: `vaultgate stdio` starts answering before pydantic and the
# settings are imported (see `main`); everything else is imported where it is used.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from service.protocol.stdio_front import StdioFront
    from service.settings import Settings

# numpy's OpenBLAS on one thread unless the user chose otherwise (read when numpy loads, so set
# before anything imports it). The server's BLAS work is fitting and coding the semantic scan's
# compact codes once per matrix (queries use einsum, not BLAS); each further BLAS thread keeps a
# buffer of its own for the life of the process: +58 MB resident at 10,000 notes for 15 % of
# that one-time step (docs/benchmarks.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

CONFIG_ENV = "VAULTGATE_CONFIG"
TARGET_HELP = f"a vault folder or a TOML config file (default: ${CONFIG_ENV})"


def _facade_modes() -> tuple[str, ...]:
    from typing import get_args

    from service.settings import ToolFacadeSettings

    return tuple(str(m) for m in get_args(ToolFacadeSettings.model_fields["mode"].annotation))


def _parser() -> argparse.ArgumentParser:
    import argparse
    from pathlib import Path

    from service._version import VERSION

    modes = _facade_modes()
    parser = argparse.ArgumentParser(prog="vaultgate", description="Serve Obsidian vaults to AI agents over MCP.")
    parser.add_argument("--version", action="version", version=f"vaultgate {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve over Streamable HTTP")
    serve.add_argument("target", type=Path, nargs="?", help=TARGET_HELP)
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8765; 0 picks a free one)")
    serve.add_argument("--tool-facade", choices=modes, help="what tools/list advertises")

    stdio = sub.add_parser("stdio", help="serve one client over stdin/stdout")
    stdio.add_argument("target", type=Path, nargs="?", help=TARGET_HELP)
    stdio.add_argument("--tool-facade", choices=modes, help="what tools/list advertises")

    config = sub.add_parser("config", help="show or validate the effective configuration")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    show = config_sub.add_parser("show", help="print the effective config (secrets redacted)")
    show.add_argument("target", type=Path, nargs="?", help=TARGET_HELP)
    validate = config_sub.add_parser(
        "validate", help="exit 1 listing every problem (settings, vault, cache and data folders) if any"
    )
    validate.add_argument("target", type=Path, nargs="?", help=TARGET_HELP)

    token = sub.add_parser("token", help="mint bearer tokens for HS256 deployments")
    token_sub = token.add_subparsers(dest="token_command", required=True)
    mint = token_sub.add_parser("mint", help="print a signed HS256 JWT")
    mint.add_argument("--secret-env", required=True, help="environment variable holding the shared secret")
    mint.add_argument("--sub", required=True, help="the caller's name (sub claim)")
    mint.add_argument("--scope", required=True, help='space-separated scopes, e.g. "read:vault write:vault/Inbox/**"')
    mint.add_argument("--vault", help="bind the token to one vault id")
    mint.add_argument("--ttl", default="1h", help="lifetime: 90s, 30m, 12h, 7d (default 1h)")
    mint.add_argument("--issuer", help="iss claim (set it when the server checks auth.issuer)")
    mint.add_argument("--audience", help="aud claim (set it when the server checks auth.audience)")

    confirm = sub.add_parser("confirm", help="approve a call that answered elicit_required (prints a token)")
    confirm.add_argument("args_hash", help="details.args_hash from the elicit_required answer")
    confirm.add_argument(
        "target", type=Path, nargs="?", help="the vault folder or config file the server runs on (or $VAULTGATE_CONFIG)"
    )
    confirm.add_argument("--vault", help="vault id, when the same call is pending in several vaults")

    docs = sub.add_parser("docs", help="print generated documentation")
    docs.add_argument(
        "page",
        choices=("tools", "plan-schema", "tool-schemas", "tool-index", "initialize-answers", "tools-list-answers"),
        help="tools: the tool catalog (docs/tools.md); plan-schema: the plan JSON Schema (docs/plan.schema.json); "
        "tool-schemas: the tools' JSON schemas, for the package's copy (service/storage/tool-schemas.json); "
        "tool-index: where each tool is declared (service/tools/tool-index.json); "
        "initialize-answers: the SDK's initialize answers (service/protocol/initialize-answers.json); "
        "tools-list-answers: the SDK's tools/list answers under the default settings "
        "(service/protocol/tools-list-answers.json)",
    )

    sub.add_parser("version", help="print the versions of vaultgate, Python, SQLite (+ sqlite-vec) and the MCP SDK")

    health = sub.add_parser("healthcheck", help="exit 0 when the local server answers /healthz (container HEALTHCHECK)")
    health.add_argument(
        "target", type=Path, nargs="?", help="config file to read [http] from (default: $VAULTGATE_CONFIG or env)"
    )
    health.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (default 3)")
    return parser


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_ttl(text: str) -> int:
    from service.errors import ConfigError

    text = text.strip().lower()
    unit = text[-1:] if text[-1:] in _UNITS else "s"
    number = text[:-1] if text[-1:] in _UNITS else text
    try:
        seconds = int(float(number) * _UNITS[unit])
    except ValueError:
        raise ConfigError(f"--ttl {text!r}: use e.g. 90s, 30m, 12h or 7d") from None
    if seconds <= 0 or seconds > 366 * 86400:
        raise ConfigError("--ttl must be between 1 second and 366 days")
    return seconds


def cmd_token(args: argparse.Namespace) -> int:
    from service.errors import ConfigError
    from service.security.jwt import mint_hs256
    from service.security.scopes import mint_refusal, parse_scopes

    secret = os.environ.get(args.secret_env)
    if not secret:
        raise ConfigError(f"environment variable {args.secret_env} is not set")
    grants = parse_scopes(args.scope)
    if (problem := mint_refusal(grants)) is not None:
        raise ConfigError(f"--scope: {problem}")
    print(
        mint_hs256(
            secret,
            subject=args.sub,
            scopes=" ".join(sorted(grants)),
            ttl_seconds=parse_ttl(args.ttl),
            vault=args.vault,
            issuer=args.issuer,
            audience=args.audience,
        )
    )
    return 0


def _load(target: Path | None, **overrides: Any) -> Settings:
    """Settings from PATH, or from the path in $VAULTGATE_CONFIG when PATH is omitted."""
    from service.settings import load_settings

    return load_settings(_target(target), **overrides)


def _target(target: Path | None) -> Path:
    """PATH, or the path in $VAULTGATE_CONFIG when PATH is omitted."""
    from pathlib import Path

    from service.errors import ConfigError

    if target is None:
        from_env = os.environ.get(CONFIG_ENV, "").strip()
        if not from_env:
            raise ConfigError(f"give a vault folder or config file, or set {CONFIG_ENV}")
        target = Path(from_env)
    return target


def _startable(target: Path | None, **overrides: Any) -> Settings:
    """The settings once every check of every stage passes; else one error listing every problem."""
    from service.errors import ConfigError
    from service.settings import check_config

    settings, problems = check_config(_target(target), **overrides)
    if settings is None or problems:
        raise ConfigError("cannot start:\n  " + "\n  ".join(problems), problems)
    return settings


def _for_transport(settings: Settings, *, preload_vectors: bool) -> Settings:
    """Settings whose default depends on the command: `[embeddings] preload_vectors` when unset."""
    if settings.embeddings.preload_vectors is not None:
        return settings
    embeddings = settings.embeddings.model_copy(update={"preload_vectors": preload_vectors})
    return settings.model_copy(update={"embeddings": embeddings})


def cmd_serve(args: argparse.Namespace) -> int:
    http: dict[str, Any] = {}
    if args.host is not None:
        http["host"] = args.host
    if args.port is not None:
        http["port"] = args.port
    overrides: dict[str, Any] = {"http": http} if http else {}
    if args.tool_facade:
        overrides["tool_facade"] = {"mode": args.tool_facade}
    from service.gcpause import paused
    from service.protocol.sdk_packages import skip_package_inits

    skip_package_inits()  # a server needs neither the SDK's client nor `MCPServer` (its docstring)
    with paused():  # what loads here lives as long as the process (`service.serve.serve_http`)
        settings = _for_transport(_startable(args.target, **overrides), preload_vectors=True)
        from service.serve import run_http

    run_http(settings)
    return 0


def cmd_stdio(args: argparse.Namespace) -> int:
    import gc

    from service.gcpause import paused
    from service.protocol.sdk_packages import for_stdio

    for_stdio()  # the first call waits for no SDK client, `MCPServer`, metrics' exposition nor uvicorn
    # What loads from here on lives as long as the process: no cyclic collection walks it while it
    # is made, nor after (frozen at the end of the block: re-enabled, the collector would walk it
    # all at once, during the first call); ~170 ms of CPU on 2 cores (docs/benchmarks.md). Cyclic
    # garbage made meanwhile stays (~1,000 objects); `service.collector` freezes what comes later.
    with paused():
        facade = {"tool_facade": {"mode": args.tool_facade}} if args.tool_facade else {}
        local = {"auth": {"mode": "none"}, "http": {"host": "127.0.0.1"}}  # no HTTP here: a jwt secret is not needed
        settings = _for_transport(_startable(args.target, **local, **facade), preload_vectors=False)
        from service.protocol.stdio_front import StdioFront, startup_key

        # The first questions are answered from the answers stored by an earlier start while the
        # SDK, the tools and the index load (see service/protocol/stdio_front.py); `main` started
        # the front before the settings were imported, unless called with an argument list.
        front: StdioFront | None = args.front
        if front is None:
            front = StdioFront(settings.cache_dir(), startup_key(sys.argv[1:], os.environ))
            front.start()
            front.wait_first_answers()
        front.check_settings(settings.model_dump_json())
        from service.protocol.shipped_tools_list import list_settings

        front.settings_loaded(list_settings(settings))  # an empty cache's tool list, before the app loads
        from service.app import VaultgateApp
        from service.obs.logging import setup_logging
        from service.serve_stdio import run_stdio

        setup_logging(settings.log)
        app = VaultgateApp(settings, owns_process=True)
        gc.freeze()
    return run_stdio(app, front)


def cmd_config(args: argparse.Namespace) -> int:
    from service.errors import ConfigError
    from service.settings import check_config, config_warnings

    if args.config_command == "show":
        shown = _load(args.target)
        print(json.dumps(shown.redacted(), indent=2, default=str))
        return 0
    settings, problems = check_config(_target(args.target))  # every stage, every problem, in one run
    for warning in config_warnings(settings) if settings is not None else []:
        print(f"warning: {warning}", file=sys.stderr)
    if settings is None or problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems), problems)
    print(f"ok: {len(settings.vaults)} vault(s): {', '.join(v.id for v in settings.vaults)}")
    print(f"index (cache folder): {settings.cache_dir()}")
    print(f"audit and confirmation records (data folder): {settings.data_dir()}")
    return 0


def version_lines() -> list[str]:
    """`vaultgate X.Y.Z` first, then the runtime it would serve with."""
    import platform
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    from service._version import VERSION
    from service.storage.db import Backends, connect

    backends = Backends()
    try:
        connect(":memory:", backends).close()
        sqlite = f"SQLite {backends.sqlite_version} ({backends.driver})"
        vec = f"sqlite-vec {backends.vec_version}" if backends.vec else f"sqlite-vec unavailable ({backends.vec_error})"
    except Exception as exc:  # noqa: BLE001 - report, do not crash `version`
        sqlite, vec = f"SQLite unavailable ({type(exc).__name__})", "sqlite-vec unavailable"
    try:
        mcp = dist_version("mcp")
    except PackageNotFoundError:
        mcp = "not installed"
    return [
        f"vaultgate {VERSION}",
        f"Python {platform.python_version()} ({platform.python_implementation()})",
        sqlite,
        vec,
        f"MCP SDK {mcp}",
    ]


def cmd_version(args: argparse.Namespace) -> int:
    print("\n".join(version_lines()))
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    settings = _load(args.target, auth={"mode": "none"}, http={"host": "127.0.0.1"})  # serves nothing: no secret
    import asyncio

    from service.policy.confirm_cli import mint_for

    return asyncio.run(mint_for(settings, args.args_hash, vault_id=args.vault))


def cmd_docs(args: argparse.Namespace) -> int:
    if args.page == "tool-schemas":  # made at install time: a first start then lists tools without generating
        from service.storage.schema_cache import shipped_table
        from service.tools.registry import build_registry

        sys.stdout.write(shipped_table(build_registry()) + "\n")
        return 0
    if args.page == "tool-index":  # committed; tests/contract checks it is current
        from service.storage.tool_index import shipped_table as index_table
        from service.tools.registry import build_registry

        sys.stdout.write(index_table(build_registry().where_found()))
        return 0
    if args.page == "initialize-answers":  # committed; tests/contract checks it is current
        from service.docs_tables import initialize_table

        sys.stdout.write(initialize_table())
        return 0
    if args.page == "tools-list-answers":  # committed; tests/contract checks it is current
        from service.docs_tables import tools_list_table

        sys.stdout.write(tools_list_table())
        return 0
    if args.page == "plan-schema":
        from service.plans.model import plan_schema

        sys.stdout.write(json.dumps(plan_schema(), indent=2, ensure_ascii=False) + "\n")
        return 0
    from service.catalog_doc import tools_page

    sys.stdout.write(tools_page())
    return 0


def cmd_healthcheck(args: argparse.Namespace) -> int:
    """GET /healthz on the configured port: from a config file, else the VAULTGATE_HTTP__* variables."""
    import urllib.request

    from service.settings.loader import http_only

    configured = args.target is not None or os.environ.get(CONFIG_ENV, "").strip()
    http = http_only(_target(args.target) if configured else None)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(http.host, http.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{http.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=args.timeout) as response:  # noqa: S310 - a fixed http URL
            healthy = response.status == 200
    except OSError as exc:
        print(f"vaultgate: {url} does not answer: {exc}", file=sys.stderr)
        return 1
    print(f"{url}: {'ok' if healthy else 'unhealthy'}")
    return 0 if healthy else 1


COMMANDS = {
    "serve": cmd_serve,
    "stdio": cmd_stdio,
    "config": cmd_config,
    "token": cmd_token,
    "confirm": cmd_confirm,
    "docs": cmd_docs,
    "version": cmd_version,
    "healthcheck": cmd_healthcheck,
}


def _early_front() -> StdioFront | None:
    """The process's own `stdio` command: its front answers from stored answers before
    pydantic and the settings are imported; the rest loads once the tool list went out."""
    if sys.argv[1:2] != ["stdio"]:
        return None
    from service.protocol.stdio_front import early_front

    front = early_front(sys.argv[1:], os.environ)
    if front is not None:
        front.wait_first_answers()
    return front


BROKEN_PIPE_EXIT = 128 + 13  # what a shell reports for a process that SIGPIPE ended


def _drop_stdout() -> None:
    """The reader is gone: point stdout at /dev/null so the final flush at exit stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing left to flush
        pass


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the process's own command line: the heaps' cap before its first thread (the stdio front's)
        from service.malloc import limit_arenas

        limit_arenas()  # a thread keeps the heap it was given (service/malloc.py)
    front = _early_front() if argv is None else None
    import service._deferred_models  # noqa: F401 - before any pydantic model class is defined
    from service.errors import StartupError

    args = _parser().parse_args(argv)
    args.front = front
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # here, so a closed pipe is seen below and not at interpreter exit
        return code
    except BrokenPipeError:
        _drop_stdout()
        return BROKEN_PIPE_EXIT
    except StartupError as exc:
        print(f"vaultgate: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a folder or file the start-up checks could not foresee (a race, a disk)
        where = f" {exc.filename}" if exc.filename else ""
        print(f"vaultgate: cannot start:{where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
