"""Loading: a vault folder or a TOML config file, then the environment, then overrides.

`load_settings` turns every problem (a missing folder, bad TOML, a validation error) into one
readable `ConfigError` listing all of them (`ConfigError.problems`): a configuration that fails
validation still has its vault folders and its cross-section rules (`default_vault` names a
vault, ids unique, no unauthenticated public host) checked on the raw values, and so are the vault
folders, bridge cert files and explicit cache, data and spool folders they name. `check_config`
(`vaultgate config validate`) adds `service.settings.checks` (can those folders be read and
written) and returns every problem of every stage in one list, saying which checks could not run.
Relative paths in a config file are resolved against its folder. A file given as the target that
is not TOML (`vaultgate serve some/note.md`) is "not a folder", not a TOML error.
`config_warnings` lists what works but should not be done. `http_only` reads the `[http]` host
and port alone, for `vaultgate healthcheck`, which needs neither the auth secret nor the vaults.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic import ValidationError

from service.errors import ConfigError
from service.settings.checks import creatable, folder_problems
from service.settings.http import HttpSettings
from service.settings.root import CONFIG_FILE, Settings

NOTE_SUFFIXES = (".md", ".markdown", ".canvas", ".base")  # vault files, never a config file


def load_settings(target: Path | str | None = None, **overrides: Any) -> Settings:
    """Build settings from a vault folder or a TOML file, then env, then `overrides`.

    Raises `ConfigError` with a readable message for anything that cannot be served.
    """
    settings, problems = _build(target, overrides)
    if settings is None or problems:
        raise _problems(problems)
    return settings


def check_config(target: Path | str | None = None, **overrides: Any) -> tuple[Settings | None, list[str]]:
    """The settings (None when they cannot be built) and every problem found, every stage in one
    run: the settings themselves, the files and folders they name (`_finish`), and whether those
    folders can be read and written (`service.settings.checks`). A stage that cannot run because an
    earlier one failed says so in the list."""
    try:
        settings, problems = _build(target, overrides)
    except ConfigError as exc:
        return None, [*exc.problems, _NOT_READ]
    if settings is None:
        return None, [*problems, _NOT_CHECKED]
    return settings, list(dict.fromkeys([*problems, *folder_problems(settings)]))


_NOT_READ = "nothing else was checked: the configuration could not be read"
_NOT_CHECKED = (
    "not checked until the settings above are valid: whether each vault can be read and written, "
    "the default cache and data folders, auth.jwks_file"
)


def _build(target: Path | str | None, overrides: dict[str, Any]) -> tuple[Settings | None, list[str]]:
    """Settings and the problems of the files and folders they name; (None, problems) when they
    do not validate (the problems then include what the raw values show); `ConfigError` when the
    target or the config file cannot be read at all."""
    config_file: Path | None = None
    init: dict[str, Any] = dict(overrides)
    if target is not None:
        path = Path(target).expanduser()
        if path.is_dir():
            init.setdefault("vaults", [{"id": "main", "path": path.resolve()}])
        elif path.is_file() and path.suffix.lower() in NOTE_SUFFIXES:
            raise ConfigError(_not_a_folder(path))
        elif path.is_file():
            config_file = path.resolve()
            init["config_file"] = config_file
        else:
            raise ConfigError(f"{path}: no such vault folder or config file")
    token = CONFIG_FILE.set(config_file)
    try:
        raw = _check_toml(config_file) if config_file is not None else {}
        settings = Settings(**init)
    except ValidationError as exc:
        problems = _describe(exc)
        if not any(not err["loc"] for err in exc.errors()):  # the cross-section rules did not run
            problems += [p for p in _cross_section(init, raw) if p not in problems]
        problems += _raw_paths(init.get("vaults", raw.get("vaults")), config_file)
        problems += _raw_folders(init, raw, config_file)
        return None, problems
    finally:
        CONFIG_FILE.reset(token)
    return settings, _finish(settings)


def http_only(target: Path | None) -> HttpSettings:
    """`[http] host` and `port` of a config file (a vault folder or no target has none), under the
    `VAULTGATE_HTTP__*` variables: a `jwt` configuration checked in a shell without its secret
    (which /healthz does not need) is no invalid configuration here."""
    raw = {} if target is None or target.is_dir() else _check_toml(target)
    try:
        return HttpSettings(
            host=str(_section({}, raw, "http", "host", "127.0.0.1")).strip() or "127.0.0.1",
            port=_section({}, raw, "http", "port", 8765),
        )
    except ValidationError as exc:
        raise _problems([f"http.{line}" for line in _describe(exc)]) from None


def config_warnings(settings: Settings) -> list[str]:
    """Things that work but should not be done: a JWT secret written into the config file (it
    ends up in backups and version control) instead of the environment; two vaults bridged to the
    same Local REST API address (`_shared_bridges`)."""
    out: list[str] = _shared_bridges(settings)
    if settings.config_file is not None:
        try:
            data = tomllib.loads(settings.config_file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            return out
        auth = data.get("auth")
        if isinstance(auth, dict) and auth.get("jwt_secret"):
            out.append(
                f"auth.jwt_secret is set in {settings.config_file.name}: keep secrets out of config files "
                "(backups, version control); set VAULTGATE_AUTH__JWT_SECRET in the environment instead"
            )
    return out


def _shared_bridges(settings: Settings) -> list[str]:
    """Vaults whose bridges name one address: one Obsidian plugin answers there, for whichever vault
    that Obsidian has open, so a token for one of them reaches the other's open note and commands."""
    by_url: dict[str, list[str]] = {}
    for vault in settings.vaults:
        if vault.bridge is not None:
            by_url.setdefault(vault.bridge.url.rstrip("/").lower(), []).append(vault.id)
    return [
        f"vaults {', '.join(map(repr, ids))} have one bridge url {url}: the plugin there serves whichever of them "
        "Obsidian has open, to tokens of each; give each vault its own Local REST API port"
        for url, ids in by_url.items()
        if len(ids) > 1
    ]


def _not_a_folder(path: Path) -> str:
    return f"{path}: not a folder (serve a vault by its folder) and not a TOML config file"


def _problems(problems: list[str]) -> ConfigError:
    return ConfigError("invalid configuration:\n  " + "\n  ".join(problems), problems)


def _check_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        if path.suffix.lower() != ".toml":  # a note or other file given where a vault folder goes
            raise ConfigError(_not_a_folder(path)) from None
        raise ConfigError(f"{path.name}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror or exc}") from None


def _layered(init: dict[str, Any], raw: dict[str, Any], key: str, env: str) -> Any:
    """One raw value as the sources rank them: overrides, then the environment, then the file."""
    if key in init:
        return init[key]
    if env in os.environ:
        return os.environ[env]
    return raw.get(key)


def _section(init: dict[str, Any], raw: dict[str, Any], section: str, key: str, default: Any) -> Any:
    over = init.get(section)
    value = over.get(key) if isinstance(over, dict) else getattr(over, key, None)
    if value is None:
        value = os.environ.get(f"VAULTGATE_{section.upper()}__{key.upper()}")
    if value is None:
        table = raw.get(section)
        value = table.get(key) if isinstance(table, dict) else None
    return default if value is None else value


def _cross_section(init: dict[str, Any], raw: dict[str, Any]) -> list[str]:
    """`Settings`' own cross-section rules on the raw values of a configuration whose fields
    failed validation (pydantic skips the model's check then), so a bad key does not hide them."""
    entries = _layered(init, raw, "vaults", "VAULTGATE_VAULTS")
    if isinstance(entries, str):
        try:
            entries = json.loads(entries)
        except ValueError:
            return []
    if not isinstance(entries, list):
        entries = []
    ids = [e.get("id") if isinstance(e, dict) else getattr(e, "id", None) for e in entries]
    if not all(isinstance(i, str) for i in ids):
        return []  # an entry without an id is already reported; its rules would mislead
    default_vault = _layered(init, raw, "default_vault", "VAULTGATE_DEFAULT_VAULT")
    view = SimpleNamespace(
        vaults=[SimpleNamespace(id=i) for i in ids],
        default_vault=default_vault if isinstance(default_vault, str) else None,
        auth=SimpleNamespace(mode=_section(init, raw, "auth", "mode", "none")),
        http=SimpleNamespace(host=str(_section(init, raw, "http", "host", "127.0.0.1"))),
    )
    check = Settings.__pydantic_decorators__.model_validators["_check"].func
    try:
        check(view)
    except ValueError as exc:
        return [line.strip() for line in str(exc).split("\n") if line.strip()]
    return []


def _raw_paths(entries: Any, config_file: Path | None) -> list[str]:
    """Vault folders that do not exist and bridge cert files that are no file, read from the raw
    entries of a configuration that failed validation (so the same run reports them too)."""
    base = config_file.parent if config_file else Path.cwd()
    out: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        name = entry.get("id") if isinstance(entry, dict) else getattr(entry, "id", "?")
        raw = entry.get("path") if isinstance(entry, dict) else getattr(entry, "path", None)
        if isinstance(raw, str | Path) and not (path := (base / Path(raw).expanduser()).resolve()).is_dir():
            out.append(f"vault {name!r}: folder {path} does not exist")
        bridge = entry.get("bridge") if isinstance(entry, dict) else getattr(entry, "bridge", None)
        cert = bridge.get("cert_file") if isinstance(bridge, dict) else getattr(bridge, "cert_file", None)
        if isinstance(cert, str | Path) and not (cert_path := (base / Path(cert)).resolve()).is_file():
            out.append(f"vault {name!r}: bridge cert_file {cert_path} is not a file")
    return out


_FOLDERS = (
    ("storage", "cache_dir", "cache folder (storage.cache_dir)"),
    ("storage", "data_dir", "data folder (storage.data_dir)"),
    ("events", "spool_dir", "event spool folder (events.spool_dir)"),
)


def _raw_folders(init: dict[str, Any], raw: dict[str, Any], config_file: Path | None) -> list[str]:
    """The folders a configuration that failed validation names explicitly, checked as
    `folder_problems` checks them (so a schema error does not hide them)."""
    base = config_file.parent if config_file else Path.cwd()
    out: list[str] = []
    for section, key, what in _FOLDERS:
        value = _section(init, raw, section, key, None)
        if not isinstance(value, str | Path) or not str(value):
            continue
        if (problem := creatable((base / Path(value).expanduser()).resolve(), what)) is not None:
            out.append(problem)
    return out


def _finish(settings: Settings) -> list[str]:
    """Resolve relative paths against the config file; the vault folders that do not exist and
    the bridge cert files that are no file."""
    base = settings.config_file.parent if settings.config_file else Path.cwd()
    missing: list[str] = []
    for vault in settings.vaults:
        if not vault.path.is_absolute():
            vault.path = (base / vault.path.expanduser()).resolve()
        else:
            vault.path = vault.path.resolve()
        if not vault.path.is_dir():
            missing.append(f"vault {vault.id!r}: folder {vault.path} does not exist")
        if vault.bridge is not None and vault.bridge.cert_file is not None:
            vault.bridge.cert_file = (base / vault.bridge.cert_file).resolve()  # an absolute one stays as it is
            if not vault.bridge.cert_file.is_file():
                missing.append(f"vault {vault.id!r}: bridge cert_file {vault.bridge.cert_file} is not a file")
    if settings.storage.data_dir is not None and not settings.storage.data_dir.is_absolute():
        settings.storage.data_dir = (base / settings.storage.data_dir).resolve()
    if settings.storage.cache_dir is not None and not settings.storage.cache_dir.is_absolute():
        settings.storage.cache_dir = (base / settings.storage.cache_dir).resolve()
    if settings.events.spool_dir is not None and not settings.events.spool_dir.is_absolute():
        settings.events.spool_dir = (base / settings.events.spool_dir).resolve()
    return missing


def _describe(exc: ValidationError) -> list[str]:
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        lines.append(f"{where}: {msg}" if where else msg)
    return lines
