"""The served vaults (`[[vaults]]`), their path ACL (`[acl]`) and how notes are written
(`[writes]`, `[notes]`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from service.settings.base import Section
from service.settings.bridges import BridgeSettings
from service.settings.sensitive import SensitiveMode

_VAULT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class PrefixRule(Section):
    """Seed 004 prefix rule: independent read/write decisions for a folder (or file) prefix."""

    path: str = Field(description="Vault-relative prefix, e.g. 'Private' or 'Projects/Secret'; '' = whole vault.")
    read: Literal["allow", "deny"] | None = Field(default=None, description="Decision for reads.")
    write: Literal["allow", "deny"] | None = Field(default=None, description="Decision for writes and deletes.")


class AclSettings(Section):
    """Path ACL of a vault (the root block is the default; a vault's own block replaces it)."""

    read_only: bool = Field(default=False, description="Kill switch: no tool may change anything.")
    default_deny: bool = Field(default=False, description="Paths no rule or allowlist covers are denied.")
    read_paths: list[str] | None = Field(default=None, description="Glob allowlist for reads (None = all).")
    write_paths: list[str] | None = Field(default=None, description="Glob allowlist for writes (None = all).")
    delete_paths: list[str] | None = Field(default=None, description="Glob allowlist for deletes (None = all).")
    prefix_rules: list[PrefixRule] = Field(
        default_factory=list, description="Longest prefix wins; deny beats allow at equal length."
    )


class VaultConfig(Section):
    """One served vault."""

    id: str = Field(description="Stable id callers pass as the `vault` argument.")
    path: Path = Field(description="The vault folder.")
    name: str | None = Field(default=None, description="Name used in obsidian:// URLs; default: folder name.")
    acl: AclSettings | None = Field(default=None, description="This vault's ACL (replaces the root [acl]).")
    sensitive_mode: SensitiveMode | None = Field(
        default=None, description="This vault's [sensitive] mode (flag | redact | exclude); default: [sensitive] mode."
    )
    write_mode: Literal["allow", "dry-run", "confirm"] = Field(
        default="allow",
        description="allow: changes as asked; dry-run: every mutating tool previews and changes nothing; "
        "confirm: every mutating call needs a human's confirmation.",
    )
    tasks_global_filter: str | None = Field(
        default=None,
        description="The Tasks plugin's global filter for tasks_filter: only list items containing this text are "
        "tasks ('' for none); default: `globalFilter` in the vault's Tasks plugin settings (data.json).",
    )
    bridge: BridgeSettings | None = Field(
        default=None,
        description="[vaults.bridge]: the Local REST API of the Obsidian that has this vault open (docs/bridges.md).",
    )

    @field_validator("id")
    @classmethod
    def _check_id(cls, value: str) -> str:
        if not _VAULT_ID.match(value):
            raise ValueError("vault id must be 1-64 letters, digits, '_' or '-', starting with a letter/digit")
        return value

    @property
    def display_name(self) -> str:
        return self.name or self.path.name


class WriteSettings(Section):
    max_concurrent: int = Field(default=8, ge=1, description="Concurrent file writes per vault.")
    trash_folder: str = ".trash"
    refuse_device_names: bool = Field(
        default=True,
        description="Refuse to create files or folders named like Windows devices (CON, Aux.md, LPT1); existing "
        "ones are read and edited either way. false for a vault that is never synced to Windows.",
    )


class NotesSettings(Section):
    bulk_confirm_above: int = Field(
        default=20, ge=0, description="bulk_create_notes asks for confirmation above this many notes."
    )
    week_locale: str = Field(
        default="en",
        pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z]{2,4})?$",
        description="Moment locale whose week rule locale weeks (ww, gggg, e) follow when the vault's Calendar "
        "or Periodic Notes settings name none (en: Sunday, week 1 holds 1 January; en-gb: Monday, 4 January).",
    )
    week_start: Literal["locale", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] = Field(
        default="locale", description="First day of the week instead of the locale's, as those plugins offer."
    )
