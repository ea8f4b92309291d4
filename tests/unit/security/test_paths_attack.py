"""The path attack suite: every hostile path is refused with a precise code and nothing on disk
changes — through the full dispatch chain (a representative subset also runs over HTTP in
tests/e2e/test_acl_e2e.py)."""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.sec_vault import SEC_VAULT

HOSTILE: list[tuple[str, str]] = [
    ("../x", "path_invalid"),
    ("a/../../x", "path_invalid"),
    ("..", "path_invalid"),
    ("Inbox/./../../x", "path_invalid"),
    ("%2e%2e/x", "path_invalid"),
    ("%2e%2e%2fx", "path_invalid"),
    ("..%2fx", "path_invalid"),
    ("%c0%ae%c0%ae/x", "path_invalid"),  # overlong UTF-8 for '..', percent-encoded
    ("..\\x", "path_invalid"),
    ("a\\..\\..\\x", "path_invalid"),
    ("Inbox/..\\../x", "path_invalid"),  # mixed slashes
    ("/etc/passwd", "path_invalid"),
    ("//server/share/x", "path_invalid"),
    ("\\\\server\\share\\x", "path_invalid"),
    ("C:/x", "path_invalid"),
    ("c:x", "path_invalid"),
    ("C:\\Windows\\x", "path_invalid"),
    ("\u00c0\u00ae\u00c0\u00ae/canary.md", "path_invalid"),  # overlong UTF-8 for '..', read as Latin-1
    ("x\x00y", "path_invalid"),
    ("Inbox/x\n.md", "path_invalid"),
    ("file:///etc/passwd", "path_invalid"),
    ("http://evil.example/x", "path_invalid"),
    ("obsidian://open?vault=x", "path_invalid"),
    ("", "path_invalid"),
    ("   ", "path_invalid"),
    ("x" * 300, "path_invalid"),
    (".obsidian/app.json", "acl_denied"),
    (".OBSIDIAN/app.json", "acl_denied"),
    (".git/config", "acl_denied"),
    (".trash/x", "acl_denied"),
    (".vaultgate/cache.db", "acl_denied"),
    ("Inbox/../.obsidian/x", "path_invalid"),
    # names that only look like traversal (the reliability probe's list): double-encoded,
    # NFKC-folded dots, slash and dot lookalikes, a path parameter, a home folder
    ("..%252fx.md", "path_invalid"),
    ("%252e%252e/x.md", "path_invalid"),
    ("Inbox/%25252e%25252e/x.md", "path_invalid"),
    ("\uff0e\uff0e/x.md", "path_invalid"),  # fullwidth full stops
    ("\u2025/x.md", "path_invalid"),  # two dot leader
    ("..\u2215x.md", "path_invalid"),  # division slash
    ("..\u2044x.md", "path_invalid"),  # fraction slash
    ("..\uff0fx.md", "path_invalid"),  # fullwidth solidus
    ("\u3002\u3002/x.md", "path_invalid"),  # ideographic full stops
    ("..;/x.md", "path_invalid"),
    ("~/x.md", "path_invalid"),
]

# Names Windows reserves for devices: valid paths (such notes exist on Linux and macOS vaults and
# are read and edited), refused only when created (`[writes] refuse_device_names`).
DEVICE_NAMES = ["CON", "Inbox/con.md", "nul.txt", "COM1.md", "LPT9", "Inbox/aux"]

# Legitimate names near those: they stay usable.
LOOKALIKE_NEIGHBOURS = [
    "Inbox/./Plain.md",
    "Inbox/\u7d42\u308f\u308a\u3002.md",
    "Inbox/100% done.md",
    "Inbox/~draft.md",
    "Inbox/\u2026more.md",
]


@pytest.fixture
async def vault(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(SEC_VAULT)) as vg:
        yield vg


@pytest.mark.parametrize(("path", "code"), HOSTILE, ids=[repr(p)[:30] for p, _ in HOSTILE])
async def test_hostile_paths_are_refused_for_writes_and_reads(vault: Harness, path: str, code: str) -> None:
    before = vault.snapshot()
    await vault.err("create_note", code, path=path, content="pwned")
    await vault.err("write_note", code, path=path, content="pwned", mode="overwrite")
    await vault.err("read_note", code, path=path)
    await vault.err("move_note", code, path="Inbox/Todo", new_path=path)
    assert vault.snapshot() == before


@pytest.mark.parametrize("path", DEVICE_NAMES)
async def test_windows_device_names_are_never_created_and_a_missing_one_is_not_found(vault: Harness, path: str) -> None:
    before = vault.snapshot()
    await vault.err("create_note", "path_invalid", path=path, content="pwned")
    await vault.err("write_note", "path_invalid", path=path, content="pwned", mode="overwrite")
    await vault.err("move_note", "path_invalid", path="Inbox/Todo", new_path=path)
    await vault.err("read_note", "note_not_found", path=path)
    assert vault.snapshot() == before


@pytest.mark.parametrize("path", LOOKALIKE_NEIGHBOURS)
async def test_names_near_the_lookalikes_stay_usable(vault: Harness, path: str) -> None:
    created = await vault.ok("create_note", path=path, content="fine")
    assert (await vault.ok("read_note", path=created["path"]))["content"].endswith("fine")


async def test_lookalike_refusals_say_why_and_how(vault: Harness) -> None:
    err = await vault.err("create_note", "path_invalid", path="\u3002\u3002/x.md", content="x")
    assert err["details"]["reason"] == "segment that looks like '..'"
    assert "relative path" in err["hint"]
    err = await vault.err("create_note", "path_invalid", path="~/x.md", content="x")
    assert "home folder" in err["details"]["reason"]
    assert not (vault.root / "~").exists()


async def test_the_disk_snapshot_covers_the_folder_around_the_vault_and_the_cache_folder(vault: Harness) -> None:
    """What 'nothing changed on disk' means in this suite: a file appearing next to the vault
    (where `../x` would land) or in a `.vaultgate` folder inside it (where earlier versions kept
    the index; today the index and event log live outside the vault) is a change."""
    await vault.ok("read_note", path="Inbox/Todo")
    before = vault.snapshot()
    for stray in (vault.root.parent / "x", vault.root.parent / "outside" / "x.md", vault.root / ".vaultgate" / "x"):
        stray.parent.mkdir(exist_ok=True)
        stray.write_text("pwned", encoding="utf-8")
        assert vault.snapshot() != before, stray
        stray.unlink()
    (vault.root.parent / "outside").rmdir()
    (vault.root / ".vaultgate").rmdir()
    await vault.err("read_note", "path_invalid", path="../x")  # the database and event log move on
    assert vault.snapshot() == before


async def test_nfd_and_nfc_spellings_are_one_note(make_vault: Callable[..., Path]) -> None:
    nfc = unicodedata.normalize("NFC", "Café.md")
    nfd = unicodedata.normalize("NFD", "Café")
    async with started(make_vault({nfc: "# Café\n"})) as vg:
        assert (await vg.ok("read_note", path=nfd))["path"] == nfc
        before = vg.snapshot()
        await vg.err("create_note", "already_exists", path=nfd, content="twin")
        assert vg.snapshot() == before


async def test_symlinks_leaving_the_vault_are_refused(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Outside secret\n", encoding="utf-8")
    root = make_vault(SEC_VAULT)
    (root / "Inbox" / "Leak.md").symlink_to(outside / "secret.md")
    (root / "Escape").symlink_to(outside, target_is_directory=True)
    async with started(root) as vg:
        await vg.indexed()
        before = vg.snapshot()
        outside_before = sorted(p.name for p in outside.iterdir())
        await vg.err("read_note", "path_invalid", path="Inbox/Leak")
        await vg.err("read_note", "path_invalid", path="Escape/secret")
        await vg.err("create_note", "path_invalid", path="Escape/new", content="x")
        await vg.err("write_note", "path_invalid", path="Inbox/Leak", content="x", mode="overwrite")
        await vg.err("delete_note", "path_invalid", path="Inbox/Leak", permanent=True)
        assert (await vg.ok("search_text", query="outside"))["items"] == []
        listed = [i["path"] for i in (await vg.ok("list_notes"))["items"]]
        assert "Escape/secret.md" not in listed and "Inbox/Leak.md" not in listed
        assert vg.snapshot() == before
        assert sorted(p.name for p in outside.iterdir()) == outside_before


ACL_CASES: list[tuple[dict[str, Any], str, dict[str, Any], str]] = [
    # deny beats allow at equal length; longest prefix wins
    (
        {"prefix_rules": [{"path": "Projects", "write": "allow"}, {"path": "Projects", "write": "deny"}]},
        "write_note",
        {"path": "Projects/Plan", "content": "x", "mode": "overwrite"},
        "acl_denied",
    ),
    (
        {"prefix_rules": [{"path": "Projects", "write": "allow"}, {"path": "Projects/Notes", "write": "deny"}]},
        "append_note",
        {"path": "Projects/Notes/Idea", "content": "x"},
        "acl_denied",
    ),
    # write allowed, read denied: writing works, reading does not
    (
        {"prefix_rules": [{"path": "Inbox", "read": "deny", "write": "allow"}]},
        "read_note",
        {"path": "Inbox/Todo"},
        "acl_denied",
    ),
    # moves and copies whose destination is denied
    (
        {"write_paths": ["Inbox/**"]},
        "move_note",
        {"path": "Inbox/Todo", "new_path": "Projects/Todo"},
        "acl_denied",
    ),
    ({"write_paths": ["Inbox/**"]}, "copy_note", {"path": "Projects/Plan", "new_path": "Welcome2"}, "acl_denied"),
    # one denied path in a bulk create: nothing is written
    (
        {"write_paths": ["Inbox/**"]},
        "bulk_create_notes",
        {"notes": [{"path": "Inbox/A", "content": "a"}, {"path": "Projects/B", "content": "b"}]},
        "acl_denied",
    ),
    ({"delete_paths": []}, "delete_note", {"path": "Inbox/Todo"}, "acl_denied"),
    ({"default_deny": True}, "read_note", {"path": "Welcome"}, "acl_denied"),
    ({"read_only": True}, "create_note", {"path": "Inbox/New", "content": "x"}, "forbidden"),
    ({"read_only": True}, "rename_tag", {"old": "project", "new": "proj", "dry_run": False}, "forbidden"),
]


@pytest.mark.parametrize(("acl", "tool", "args", "code"), ACL_CASES, ids=[c[1] for c in ACL_CASES])
async def test_acl_attacks(
    make_vault: Callable[..., Path], acl: dict[str, Any], tool: str, args: dict[str, Any], code: str
) -> None:
    async with started(make_vault(SEC_VAULT), acl=acl) as vg:
        await vg.indexed()
        before = vg.snapshot()
        error = await vg.err(tool, code, **args)
        if code == "acl_denied":
            assert error["details"]["path"] and error["details"]["op"] in ("read", "write", "delete")
        assert vg.snapshot() == before


async def test_write_allowed_read_denied_note_can_be_written_blind(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Inbox", "read": "deny", "write": "allow"}]}
    async with started(make_vault(SEC_VAULT), acl=acl) as vg:
        await vg.ok("create_note", path="Inbox/Drop", content="dropped\n")
        assert vg.read("Inbox/Drop.md") == "dropped\n"
        await vg.err("read_note", "acl_denied", path="Inbox/Drop")
        await vg.confirmed("move_note", path="Projects/Plan", new_path="Inbox/Plan")  # dropping a note in is fine
        assert (vg.root / "Inbox" / "Plan.md").is_file()
        await vg.ok("copy_note", path="Welcome", new_path="Inbox/Welcome copy")
        await vg.ok("bulk_create_notes", notes=[{"path": "Inbox/B1", "content": "b"}])
        assert (vg.root / "Inbox" / "Welcome copy.md").is_file() and vg.read("Inbox/B1.md") == "b"


# A write-only drop box: changing an existing note there would echo what the tool saw.
DROP_BOX_EDITS: list[tuple[str, dict[str, Any]]] = [
    ("write_note", {"path": "Inbox/Todo", "content": "x", "mode": "overwrite"}),
    ("write_note", {"path": "Inbox/Todo", "content": "x", "mode": "overwrite", "expected_etag": "0"}),
    ("append_note", {"path": "Inbox/Todo", "content": "x"}),
    ("prepend_note", {"path": "Inbox/Todo", "content": "x"}),
    ("patch_note", {"path": "Inbox/Todo", "heading": ["Secret heading?"], "content": "x"}),
    ("set_properties", {"path": "Inbox/Todo", "properties": {"a": 1}}),
    ("delete_property", {"path": "Inbox/Todo", "key": "tags"}),
    ("add_tags", {"path": "Inbox/Todo", "tags": ["x"]}),
    ("remove_tags", {"path": "Inbox/Todo", "tags": ["inbox"]}),
    ("delete_note", {"path": "Inbox/Todo"}),
    ("move_note", {"path": "Inbox/Todo", "new_path": "Inbox/Renamed"}),
    ("create_note", {"path": "Inbox/Todo", "content": "x"}),
    ("bulk_create_notes", {"notes": [{"path": "Inbox/Todo", "content": "x"}], "overwrite": True}),
]


@pytest.mark.parametrize(("tool", "args"), DROP_BOX_EDITS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(DROP_BOX_EDITS)])
async def test_existing_notes_in_a_write_only_folder_cannot_be_changed(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    acl = {"prefix_rules": [{"path": "Inbox", "read": "deny", "write": "allow"}]}
    async with started(make_vault(SEC_VAULT), acl=acl) as vg:
        await vg.indexed()
        before = vg.snapshot()
        error = await vg.err(tool, "acl_denied", **args)
        assert error["details"]["path"] == "Inbox/Todo.md" and error["details"]["op"] in ("write", "delete")
        assert "Todo\n" not in str(error) and "inbox" not in str(error).replace("Inbox", "")
        assert vg.snapshot() == before
        decision = await vg.ok("inspect_acl", path="Inbox/Todo.md", op="write")
        assert (decision["allowed"], decision["code"]) == (False, "acl_denied")


PRIVE_NFC = unicodedata.normalize("NFC", "Privé")
PRIVE_NFD = unicodedata.normalize("NFD", "Privé")
DENY_PRIVATE = {
    "prefix_rules": [
        {"path": "Private", "read": "deny", "write": "deny"},
        {"path": PRIVE_NFD, "read": "deny", "write": "deny"},  # typed in NFD: still guards the NFC folder
    ],
    "write_paths": ["Inbox/**"],
}
# (tool, args, code): spellings and routes that must not reach a denied folder.
ROUTES: list[tuple[str, dict[str, Any], str]] = [
    ("read_note", {"path": "private/Diary"}, "acl_denied"),  # other case: same file on macOS/Windows
    ("read_note", {"path": "PRIVATE/Diary.md"}, "acl_denied"),
    ("create_note", {"path": "pRiVaTe/New", "content": "x"}, "acl_denied"),
    ("read_note", {"path": "./Private/Diary"}, "acl_denied"),
    ("read_note", {"path": "Private//Diary"}, "acl_denied"),
    ("read_note", {"path": "Private/./Sub/Deep"}, "acl_denied"),
    ("read_note", {"path": "Private/Sub/../Diary"}, "path_invalid"),
    ("read_note", {"path": f"{PRIVE_NFD}/Secret"}, "acl_denied"),
    ("read_note", {"path": f"{PRIVE_NFC}/Secret"}, "acl_denied"),
    ("create_note", {"path": f"{PRIVE_NFD}/New", "content": "x"}, "acl_denied"),
    ("list_notes", {"folder": "Private/"}, "acl_denied"),
    ("create_note", {"path": "Inbox/ToProjects/New", "content": "x"}, "acl_denied"),  # in-vault symlink out
    ("write_note", {"path": "Inbox/ToProjects/Plan", "content": "x", "mode": "overwrite"}, "acl_denied"),
    ("read_note", {"path": "Inbox/ToPrivate/Diary"}, "acl_denied"),
    ("copy_note", {"path": "Inbox/Todo", "new_path": "Inbox/ToPrivate/Copy"}, "acl_denied"),
    ("move_note", {"path": "Inbox/Todo", "new_path": "private/Todo"}, "acl_denied"),
    ("append_note", {"path": "Inbox/../Private/Diary", "content": "x"}, "path_invalid"),
    ("delete_note", {"path": "Private/Diary", "permanent": True}, "acl_denied"),
]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    ROUTES,
    ids=[f"{t}:{a.get('path', a.get('folder'))!r}:{a.get('new_path', '')}" for t, a, _ in ROUTES],
)
async def test_no_spelling_or_route_reaches_a_denied_folder(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], code: str
) -> None:
    root = make_vault({**SEC_VAULT, f"{PRIVE_NFC}/Secret.md": "# Secret\n"})
    (root / "Inbox" / "ToProjects").symlink_to(root / "Projects", target_is_directory=True)
    (root / "Inbox" / "ToPrivate").symlink_to(root / "Private", target_is_directory=True)
    async with started(root, acl=DENY_PRIVATE) as vg:
        before = vg.snapshot()
        error = await vg.err(tool, code, **args)
        if code == "acl_denied":
            assert error["details"]["op"] in ("read", "write", "delete") and error["details"]["path"]
        assert vg.snapshot() == before


async def test_a_denied_path_in_a_large_bulk_create_fails_before_asking_a_human(
    make_vault: Callable[..., Path],
) -> None:
    notes = [{"path": f"Inbox/n{i}", "content": "x"} for i in range(30)] + [{"path": "Projects/x", "content": "x"}]
    async with started(make_vault(SEC_VAULT), acl={"write_paths": ["Inbox/**"]}) as vg:
        before = vg.snapshot()
        error = await vg.err("bulk_create_notes", "acl_denied", notes=notes)  # not elicit_required
        assert error["details"]["path"] == "Projects/x.md"
        await vg.err("bulk_create_notes", "path_invalid", notes=[*notes[:30], {"path": "../x", "content": "x"}])
        assert vg.snapshot() == before
