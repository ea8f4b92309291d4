"""Safe path resolution (the security engineer's attack suite covers the hostile cases at length)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.errors import AclDenied, PathInvalid
from service.vault.paths import VaultPaths, normalize, obsidian_url, with_md


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a.md", "a.md"),
        ("Projects/Plan.md", "Projects/Plan.md"),
        ("./Projects//Plan.md", "Projects/Plan.md"),
        ("Cafe\u0301.md", "Caf\u00e9.md"),
        ("Notes/100% done.md", "Notes/100% done.md"),
    ],
)
def test_normalize_returns_canonical_posix_nfc_paths(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "../x.md",
        "a/../../x.md",
        "/etc/passwd",
        "C:/Windows/x.md",
        "c:x.md",
        "\\\\server\\share\\x.md",
        "a\\..\\x.md",
        "file:///etc/passwd",
        "https://example.com/x.md",
        "a\x00b.md",
        "%2e%2e/x.md",
        "a/%2E%2E/%2e%2e/x.md",
        "%c0%ae%c0%ae/x.md",
        "\u00c0\u00ae\u00c0\u00ae/canary.md",
        "a/\u00c0\u00ae\u00c0\u00ae/\u00c0\u00afetc.md",
        "\u00e0\u0080\u00ae\u00e0\u0080\u00ae/x.md",
        "\udcc0\udcae\udcc0\udcae/x.md",
        "trailing.",
        "space /x.md",
    ],
)
def test_normalize_rejects_hostile_paths(raw: str) -> None:
    with pytest.raises(PathInvalid):
        normalize(raw)


def test_latin1_names_that_are_no_overlong_form_are_kept() -> None:
    assert normalize("Caf\u00e9/\u00c0 la carte \u00ae.md") == "Caf\u00e9/\u00c0 la carte \u00ae.md"


@pytest.mark.parametrize("raw", ["CON.md", "Con/Keynote ideas.md", "sub/nul.txt", "LPT1", "Aux.md"])
def test_windows_device_names_are_valid_paths_but_not_new_names(tmp_path: Path, raw: str) -> None:
    assert normalize(raw) == raw
    rel = normalize(raw)
    device = next(seg for seg in rel.split("/") if seg.split(".")[0].upper() in ("CON", "NUL", "LPT1", "AUX"))
    with pytest.raises(PathInvalid) as info:
        VaultPaths(tmp_path).check_new_name(rel, device)
    assert info.value.details["reason"] == "reserved device name"
    VaultPaths(tmp_path, refuse_device_names=False).check_new_name(rel, device)


@pytest.mark.parametrize("raw", ["what?.md", "Programming/A* Pathfinding.md", "x <= y.md", 'say "hi".md'])
def test_windows_reserved_characters_are_valid_paths_but_not_new_names(tmp_path: Path, raw: str) -> None:
    """Notes so named exist on Linux and macOS vaults: they are read and edited, never created."""
    assert normalize(raw) == raw
    with pytest.raises(PathInvalid) as info:
        VaultPaths(tmp_path).check_new_name(raw, raw.rsplit("/", 1)[-1])
    assert info.value.details["reason"] == "reserved character"


@pytest.mark.skipif(os.name == "nt", reason="':' is a drive or a stream on Windows")
@pytest.mark.parametrize(
    "raw",
    ["Notes/a:b.md", "Themes/RedShift: OLED Blue Light Filter.md", "Book: Title.md", "Re: plan/x: y.md", "a|b.md"],
)
def test_a_colon_inside_a_name_is_a_valid_path_but_not_a_new_name(tmp_path: Path, raw: str) -> None:
    """Notes synced from Linux or macOS hold ':' (the Obsidian Hub vault has one) or '|' (made by
    another program): read and edited, never created."""
    assert normalize(raw) == raw
    with pytest.raises(PathInvalid) as info:
        VaultPaths(tmp_path).check_new_name(raw, raw.rsplit("/", 1)[-1])
    assert info.value.details["reason"] == "reserved character"


@pytest.mark.parametrize("raw", ["C:/Windows/x.md", "C:x.md", "https:x.md"])
def test_a_path_starting_like_a_drive_or_a_scheme_stays_refused(raw: str) -> None:
    with pytest.raises(PathInvalid):
        normalize(raw)


def test_root_is_allowed_only_when_asked() -> None:
    assert normalize("/", allow_root=True) == ""
    assert normalize("", allow_root=True) == ""
    with pytest.raises(PathInvalid):
        normalize("/")


def test_hidden_folders_are_denied(tmp_path: Path) -> None:
    paths = VaultPaths(tmp_path)
    for rel in (".obsidian/app.json", ".git/config", ".trash/x.md", ".vaultgate/cache.db", ".OBSIDIAN/x"):
        with pytest.raises(AclDenied) as info:
            paths.resolve(rel)
        assert info.value.details["path"] == normalize(rel)


def test_symlinks_leaving_the_vault_are_rejected(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("s")
    vault = tmp_path / "vault"
    vault.mkdir()
    os.symlink(outside, vault / "escape")
    os.symlink(outside / "secret.md", vault / "link.md")
    paths = VaultPaths(vault)
    for rel in ("escape/secret.md", "link.md", "escape/new.md"):
        with pytest.raises(PathInvalid):
            paths.resolve(rel)


def test_symlinks_inside_the_vault_resolve(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.md").write_text("a")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    vp = VaultPaths(tmp_path).resolve("alias/a.md")
    assert vp.rel == "alias/a.md"


def test_symlink_into_a_hidden_folder_is_denied(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "app.json").write_text("{}")
    os.symlink(tmp_path / ".obsidian", tmp_path / "cfg")
    with pytest.raises(AclDenied):
        VaultPaths(tmp_path).resolve("cfg/app.json")


def test_with_md_and_obsidian_url() -> None:
    assert with_md("a/b") == "a/b.md"
    assert with_md("a/b.MD") == "a/b.MD"
    assert with_md("v1.2") == "v1.2.md"
    assert obsidian_url("My Vault", "Folder/Note one.md") == (
        "obsidian://open?vault=My%20Vault&file=Folder%2FNote%20one.md"
    )


def test_normalize_answers_repeat_and_refusals_repeat() -> None:
    """Answers are remembered per string; a refused path is refused every time, and a non-string
    (unhashable or not) is `path_invalid`, never a TypeError."""
    assert normalize("Notes//A.md") == normalize("Notes//A.md") == "Notes/A.md"
    assert normalize("", allow_root=True) == ""
    with pytest.raises(PathInvalid):
        normalize("")  # the root's answer under allow_root is not reused without it
    for _ in range(2):
        with pytest.raises(PathInvalid):
            normalize("a/../b.md")
    for bad in (["a.md"], None, 3):
        with pytest.raises(PathInvalid):
            normalize(bad)  # type: ignore[arg-type]
