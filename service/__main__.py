"""Command line: `vaultgate serve|stdio|config|version …` (also `python -m service`).

Exit codes: 0 success, 1 configuration or start-up error (printed readably on stderr), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from service.errors import ConfigError
from service.settings import Settings, load_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vaultgate", description="Serve Obsidian vaults to AI agents over MCP.")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve over Streamable HTTP")
    serve.add_argument("target", type=Path, help="a vault folder or a TOML config file")
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8765; 0 picks a free one)")

    stdio = sub.add_parser("stdio", help="serve one client over stdin/stdout")
    stdio.add_argument("target", type=Path, help="a vault folder or a TOML config file")

    config = sub.add_parser("config", help="show or validate the effective configuration")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    show = config_sub.add_parser("show", help="print the effective config (secrets redacted)")
    show.add_argument("target", type=Path)
    validate = config_sub.add_parser("validate", help="exit 1 with readable errors if the config is invalid")
    validate.add_argument("target", type=Path)

    sub.add_parser("version", help="print the version")
    return parser


def _load(target: Path, **overrides: Any) -> Settings:
    return load_settings(target, **overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    http: dict[str, Any] = {}
    if args.host is not None:
        http["host"] = args.host
    if args.port is not None:
        http["port"] = args.port
    settings = _load(args.target, **({"http": http} if http else {}))
    from service.serve import serve_http

    asyncio.run(serve_http(settings))
    return 0


def cmd_stdio(args: argparse.Namespace) -> int:
    settings = _load(args.target)
    from service.app import VaultgateApp
    from service.obs.logging import setup_logging

    setup_logging(settings.log)
    asyncio.run(VaultgateApp(settings).run_stdio())
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    settings = _load(args.target)
    if args.config_command == "show":
        print(json.dumps(settings.redacted(), indent=2, default=str))
    else:
        print(f"ok: {len(settings.vaults)} vault(s): {', '.join(v.id for v in settings.vaults)}")
    return 0


def cmd_version(args: argparse.Namespace) -> int:
    from service.app import VERSION

    print(f"vaultgate {VERSION}")
    return 0


COMMANDS = {"serve": cmd_serve, "stdio": cmd_stdio, "config": cmd_config, "version": cmd_version}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ConfigError as exc:
        print(f"vaultgate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
