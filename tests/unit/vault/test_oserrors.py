"""OS failures on vault files become structured, non-retryable errors with vault-relative paths.

Tests run as root here, and root passes permission bits, so a real EACCES cannot be produced in a
temp folder: the permission cases raise the `OSError` the OS would raise at the vault layer's
boundary (the translate layer sees exactly that exception). A real read-only file system is
exercised end to end in tests/e2e/test_operations_e2e.py."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from service.dispatch.context import CallContext, ToolResult
from service.dispatch.translate import Translate
from service.settings import VaultConfig, WriteSettings
from service.storage.db import DbOperationalError
from service.tools.registry import build_registry
from service.types import Principal
from service.vault.oserrors import storage_error, vault_relative
from service.vault.vault import Vault

ROOT = Path("/srv/vault")


@pytest.mark.parametrize(
    ("code", "writing", "expected"),
    [
        (errno.EACCES, False, "vault_unreadable"),
        (errno.EACCES, True, "vault_unwritable"),
        (errno.EPERM, True, "vault_unwritable"),
        (errno.EROFS, False, "vault_unwritable"),
        (errno.ENOSPC, True, "vault_unwritable"),
        (errno.EDQUOT, True, "vault_unwritable"),
        (errno.EIO, False, "io_error"),
        (errno.EISDIR, True, "io_error"),
        (errno.ENAMETOOLONG, True, "path_invalid"),
    ],
)
def test_each_os_error_has_its_code_a_hint_and_no_retry(code: int, writing: bool, expected: str) -> None:
    exc = OSError(code, os.strerror(code), str(ROOT / "Projects" / "Plan.md"))
    payload = storage_error(exc, ROOT, writing=writing).to_payload()
    assert payload["code"] == expected
    assert payload["retryable"] is False and payload["hint"]
    assert payload["details"] == {"errno": errno.errorcode[code], "path": "Projects/Plan.md"}
    assert "/srv" not in payload["message"]


def test_paths_outside_the_vault_are_never_shown() -> None:
    exc = PermissionError(errno.EACCES, "Permission denied", "/home/someone/.cache/vaultgate/cache.db")
    payload = storage_error(exc, ROOT, writing=True).to_payload()
    assert payload["code"] == "vault_unwritable"
    assert payload["details"] == {"errno": "EACCES", "where": "server storage"}
    assert "/home" not in payload["message"]


def test_a_temp_file_is_reported_as_the_note_it_replaces() -> None:
    assert vault_relative(str(ROOT / "Inbox" / ".Idea.md.0123456789ab.vgtmp"), ROOT) == "Inbox/Idea.md"
    assert vault_relative(None, ROOT) is None


async def test_the_translate_layer_answers_a_permission_error_instead_of_internal_error(tmp_path: Path) -> None:
    vault = Vault.open(VaultConfig(id="main", path=tmp_path), WriteSettings())
    registry = build_registry()

    async def denied(call: CallContext) -> ToolResult:
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "Secret.md"))

    for tool, code in (("read_note", "vault_unreadable"), ("write_note", "vault_unwritable")):
        call = CallContext(tool=tool, raw_args={}, principal=Principal.local(), transport="inproc")
        call.spec, call.vault = registry.get(tool), vault
        result = await Translate()(call, denied)
        assert result.is_error and result.structured is not None
        error = result.structured["error"]
        assert error["code"] == code and error["details"]["path"] == "Secret.md" and not error["retryable"]
        assert str(tmp_path) not in result.text


@pytest.mark.parametrize("kind", DbOperationalError, ids=lambda k: k.__module__)
async def test_a_database_on_a_read_only_or_full_disk_is_a_storage_error_not_a_bug(kind: type[Exception]) -> None:
    """Whichever driver raises it: sqlean's exceptions (the driver in use) do not subclass the
    standard library's."""

    async def readonly(call: CallContext) -> ToolResult:
        raise kind("attempt to write a readonly database")

    async def other(call: CallContext) -> ToolResult:
        raise kind("no such table: nope")

    call = CallContext(tool="write_note", raw_args={}, principal=Principal.local(), transport="inproc")
    result = await Translate()(call, readonly)
    assert result.structured is not None
    error = result.structured["error"]
    assert error["code"] == "vault_unwritable" and error["details"] == {"errno": "EROFS", "where": "server storage"}
    assert "config validate" in error["hint"] and error["retryable"] is False
    bug = await Translate()(call, other)
    assert bug.structured is not None and bug.structured["error"]["code"] == "internal_error"
