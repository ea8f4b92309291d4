"""Loading: a vault folder or a TOML config file, then the environment, then overrides.

`load_settings` turns every problem (a missing folder, bad TOML, a validation error) into one
readable `ConfigError` listing all of them (`ConfigError.problems`): a configuration that fails
validation still has its vault folders checked, so one run reports everything. Relative paths
in a config file are resolved against its folder.
`config_warnings` lists what works but should not be done.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from service.errors import ConfigError
from service.settings.root import CONFIG_FILE, Settings


def load_settings(target: Path | str | None = None, **overrides: Any) -> Settings:
    """Build settings from a vault folder or a TOML file, then env, then `overrides`.

    Raises `ConfigError` with a readable message for anything that cannot be served.
    """
    config_file: Path | None = None
    init: dict[str, Any] = dict(overrides)
    if target is not None:
        path = Path(target).expanduser()
        if path.is_dir():
            init.setdefault("vaults", [{"id": "main", "path": path.resolve()}])
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
        problems = _describe(exc) + _missing_vaults(init.get("vaults", raw.get("vaults")), config_file)
        raise _problems(problems) from None
    finally:
        CONFIG_FILE.reset(token)
    return _finish(settings)


def config_warnings(settings: Settings) -> list[str]:
    """Things that work but should not be done: a JWT secret written into the config file (it
    ends up in backups and version control) instead of the environment."""
    out: list[str] = []
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


def _problems(problems: list[str]) -> ConfigError:
    return ConfigError("invalid configuration:\n  " + "\n  ".join(problems), problems)


def _check_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path.name}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror or exc}") from None


def _missing_vaults(entries: Any, config_file: Path | None) -> list[str]:
    """Vault folders that do not exist, read from the raw entries of a configuration that failed
    validation (so the same run reports them too)."""
    base = config_file.parent if config_file else Path.cwd()
    out: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        raw = entry.get("path") if isinstance(entry, dict) else getattr(entry, "path", None)
        if not isinstance(raw, str | Path):
            continue
        path = (base / Path(raw).expanduser()).resolve()
        if not path.is_dir():
            name = entry.get("id") if isinstance(entry, dict) else getattr(entry, "id", "?")
            out.append(f"vault {name!r}: folder {path} does not exist")
    return out


def _finish(settings: Settings) -> Settings:
    """Resolve relative paths against the config file and check that vault folders exist."""
    base = settings.config_file.parent if settings.config_file else Path.cwd()
    missing: list[str] = []
    for vault in settings.vaults:
        if not vault.path.is_absolute():
            vault.path = (base / vault.path.expanduser()).resolve()
        else:
            vault.path = vault.path.resolve()
        if not vault.path.is_dir():
            missing.append(f"vault {vault.id!r}: folder {vault.path} does not exist")
    if missing:
        raise _problems(missing)
    if settings.storage.data_dir is not None and not settings.storage.data_dir.is_absolute():
        settings.storage.data_dir = (base / settings.storage.data_dir).resolve()
    if settings.storage.cache_dir is not None and not settings.storage.cache_dir.is_absolute():
        settings.storage.cache_dir = (base / settings.storage.cache_dir).resolve()
    if settings.events.spool_dir is not None and not settings.events.spool_dir.is_absolute():
        settings.events.spool_dir = (base / settings.events.spool_dir).resolve()
    return settings


def _describe(exc: ValidationError) -> list[str]:
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        lines.append(f"{where}: {msg}" if where else msg)
    return lines
