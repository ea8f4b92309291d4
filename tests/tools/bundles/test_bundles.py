"""bundle_folder / bundle_files through the full dispatch chain: packing, budgets, pages that
stay stable under concurrent edits, read permission, redaction, the response cap."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

AWS = "AKIAIOSFODNN7EXAMPLE"


def folder_vault(n: int = 12, size: int = 300) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        f"Docs/n{i:02d}.md": f"---\ntitle: Note {i}\n---\n# Note {i}\n" + ("line of text\n" * (size // 13))
        for i in range(n)
    }
    files["Docs/Private/secret.md"] = "# Hidden\nnever shown\n"
    files["Other/outside.md"] = "# Outside\n"
    return files


async def pages(
    vg: Harness, tool: str, between: Callable[[int], None] | None = None, **args: Any
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await vg.ok(tool, **args, **({"cursor": cursor} if cursor else {}))
        out.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            return out
        if between is not None:
            between(len(out))
        assert len(out) < 200


def joined(all_pages: list[dict[str, Any]]) -> dict[str, str]:
    """Each note's content reassembled from its parts, checking parts follow on."""
    texts: dict[str, str] = {}
    for page in all_pages:
        for e in page["entries"]:
            if e["start"] == 0:
                texts[e["path"]] = e["content"]
            else:
                assert len(texts[e["path"]]) == e["start"]
                texts[e["path"]] += e["content"]
    return texts


@pytest.mark.covers("bundle_folder", "success")
async def test_bundle_folder_packs_in_path_order_with_a_manifest(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(5))
    async with started(root) as vg:
        out = await vg.ok("bundle_folder", folder="Docs", recursive=False)
        paths = [e["path"] for e in out["entries"]]
        assert paths == [f"Docs/n{i:02d}.md" for i in range(5)]
        assert out["manifest"]["included"] == paths and out["manifest"]["remaining"] == 0
        assert out["manifest"]["total"] == 5 and out["next_cursor"] is None
        first = out["entries"][0]
        assert first["content"] == (root / "Docs/n00.md").read_text()
        assert first["obsidian_url"].startswith("obsidian://open?vault=") and "n00" in first["obsidian_url"]
        assert first["bytes"] == len(first["content"].encode()) and first["tokens"] > 0
        assert out["manifest"]["used"] == sum(e["bytes"] for e in out["entries"])
        body = await vg.ok("bundle_folder", folder="Docs", recursive=False, mode="body")
        assert body["entries"][0]["content"].startswith("# Note 0\n")
        front = await vg.ok("bundle_folder", folder="Docs", recursive=False, mode="frontmatter")
        assert front["entries"][0]["content"] == "title: Note 0\n"


@pytest.mark.covers("bundle_folder", "success")
async def test_pages_honour_the_budget_and_split_big_notes(make_vault: Callable[..., Path]) -> None:
    files = folder_vault(12)
    files["Docs/big.md"] = "# Big\n" + "".join(f"row {i} of the big note\n" for i in range(200))
    root = make_vault(files)
    async with started(root, acl={"prefix_rules": [{"path": "Docs/Private", "read": "deny"}]}) as vg:
        all_pages = await pages(vg, "bundle_folder", folder="Docs", max_bytes=1000)
        for page in all_pages:
            assert sum(e["bytes"] for e in page["entries"]) <= 1000
            assert page["manifest"]["total"] == 13
        texts = joined(all_pages)
        assert sorted(texts) == sorted([f"Docs/n{i:02d}.md" for i in range(12)] + ["Docs/big.md"])
        for rel, text in texts.items():
            assert text == (root / rel).read_text()
        big = [e for p in all_pages for e in p["entries"] if e["path"] == "Docs/big.md"]
        assert len(big) > 3 and [e["part"] for e in big] == list(range(1, len(big) + 1))
        assert all(e["continues"] for e in big[:-1]) and not big[-1]["continues"]
        assert all(e["content"].endswith("\n") for e in big)  # cut after line breaks
        continued = [p for p in all_pages if p["manifest"]["continues"] == "Docs/big.md"]
        assert len(continued) == len(big) - 1
        seen = [p for page in all_pages for p in page["manifest"]["included"]]
        assert "Docs/Private/secret.md" not in seen and all("Private" not in str(p) for p in all_pages)
        tokens = await pages(vg, "bundle_folder", folder="Docs", max_tokens=100)
        assert joined(tokens) == texts
        assert all(sum(e["tokens"] for e in p["entries"]) <= 100 for p in tokens)


@pytest.mark.covers("bundle_folder", "success")
async def test_cursor_never_repeats_or_skips_an_unchanged_note_under_edits(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(12))
    changes = {
        1: lambda: (root / "Docs/n10.md").write_text("# edited later note\n"),
        2: lambda: (root / "Docs/n00.md").unlink(),  # already packed
        3: lambda: (root / "Docs/a-new-first.md").write_text("# created before the cursor\n"),
        4: lambda: (root / "Docs/n11.md").unlink(),  # not packed yet
        5: lambda: (root / "Docs/zz-new-last.md").write_text("# created after the cursor\n"),
    }
    async with started(root) as vg:
        all_pages = await pages(
            vg, "bundle_folder", lambda n: changes.get(n, lambda: None)(), folder="Docs", max_bytes=400
        )
        assert len(all_pages) > 5
        seen = [p for page in all_pages for p in page["manifest"]["included"]]
        assert len(seen) == len(set(seen))
        unchanged = {f"Docs/n{i:02d}.md" for i in range(1, 10)}
        assert unchanged <= set(seen)
        assert "Docs/n11.md" not in seen and "Docs/zz-new-last.md" in seen
        assert joined(all_pages)["Docs/n10.md"] == "# edited later note\n"


@pytest.mark.covers("bundle_folder", "success")
async def test_a_split_note_edited_between_pages_is_sent_again_whole(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"F/big.md": "".join(f"line {i}\n" for i in range(400))})
    async with started(root) as vg:
        first = await vg.ok("bundle_folder", folder="F", max_bytes=1000)
        assert first["entries"][0]["continues"] and first["manifest"]["continues"] == "F/big.md"
        (root / "F/big.md").write_text("short now\n")
        second = await vg.ok("bundle_folder", folder="F", max_bytes=1000, cursor=first["next_cursor"])
        [entry] = second["entries"]
        assert entry["restarted"] and entry["start"] == 0 and entry["content"] == "short now\n"
        assert second["next_cursor"] is None


@pytest.mark.covers("bundle_folder", "success")
async def test_every_page_fits_the_response_cap(make_vault: Callable[..., Path]) -> None:
    files: dict[str, str | bytes] = {f"F/q{i}.md": '"quoted\\" \t text"\n' * 400 for i in range(6)}
    root = make_vault(files)
    async with started(root, governor={"max_response_bytes": 40_000}) as vg:
        all_pages = await pages(vg, "bundle_folder", folder="F", max_bytes=5_000_000)
        assert len(all_pages) > 1
        assert joined(all_pages) == {rel: (root / rel).read_text() for rel in files}


@pytest.mark.covers("bundle_folder", "success")
async def test_secrets_are_redacted_and_flagged_per_the_vault_mode(make_vault: Callable[..., Path]) -> None:
    note = f"---\npassword: hunter2\n---\nkey {AWS}\n-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----\n"
    files: dict[str, str | bytes] = {"S/keys.md": note, "S/plain.md": "# Walk\nin the park\n"}
    root = make_vault(files)
    async with started(root) as vg:
        for max_bytes in (100_000, 300):
            all_pages = await pages(vg, "bundle_folder", folder="S", max_bytes=max_bytes)
            text = joined(all_pages)["S/keys.md"]
            assert "hunter2" not in text and AWS not in text and "MIIEv" not in text
            assert "password: [REDACTED:secret_value]" in text
        out = await vg.ok("bundle_folder", folder="S")
        flags = {e["path"]: (e["sensitive"], e["redacted"]) for e in out["entries"]}
        assert flags == {"S/keys.md": (True, 3), "S/plain.md": (False, 0)} and out["sensitive_detected"]
        files_out = await vg.ok("bundle_files", paths=["S/keys.md"], mode="frontmatter")
        assert files_out["entries"][0]["content"] == "password: [REDACTED:secret_value]\n"
    vaults = [{"id": "main", "path": str(root), "sensitive_mode": "flag"}]
    async with started(root, vaults=vaults) as vg:
        out = await vg.ok("bundle_files", paths=["S/keys.md"])
        entry = out["entries"][0]
        assert AWS in entry["content"] and entry["sensitive"] and entry["redacted"] == 0


@pytest.mark.covers("bundle_folder", "failure")
async def test_bundle_folder_failures_change_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(3))
    async with started(root, acl={"prefix_rules": [{"path": "Docs/Private", "read": "deny"}]}) as vg:
        before = vg.snapshot()
        await vg.err("bundle_folder", "note_not_found", folder="Nope")
        await vg.err("bundle_folder", "acl_denied", folder="Docs/Private")
        await vg.err("bundle_folder", "path_invalid", folder="../outside")
        await vg.err("bundle_folder", "validation_error", folder="Docs", max_bytes=1000, max_tokens=100)
        await vg.err("bundle_folder", "validation_error", folder="Docs", max_bytes=10)
        await vg.err("bundle_folder", "validation_error", folder="Docs", mode="everything")
        await vg.err("bundle_folder", "validation_error", folder="Docs", cursor="not a cursor")
        page = await vg.ok("bundle_folder", folder="Docs", max_bytes=300)
        await vg.err("bundle_folder", "validation_error", folder="Other", cursor=page["next_cursor"])
        await vg.err("bundle_folder", "validation_error", folder="Docs", mode="body", cursor=page["next_cursor"])
        assert vg.snapshot() == before


@pytest.mark.covers("bundle_files", "success")
async def test_bundle_files_keeps_the_given_order_and_lists_missing(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(4))
    async with started(root, acl={"prefix_rules": [{"path": "Docs/Private", "read": "deny"}]}) as vg:
        wanted = ["Docs/n03.md", "Nope.md", "Docs/Private/secret.md", "[[n01]]", "Docs/n03.md", "Other/outside"]
        out = await vg.ok("bundle_files", paths=wanted)
        assert [e["path"] for e in out["entries"]] == ["Docs/n03.md", "Docs/n01.md", "Other/outside.md"]
        assert out["missing"] == ["Nope.md", "Docs/Private/secret.md"]
        assert out["manifest"]["total"] == 5 and out["next_cursor"] is None
        assert "never shown" not in str(out)
        small = await pages(vg, "bundle_files", paths=wanted, max_bytes=300)
        assert list(dict.fromkeys(p for page in small for p in page["manifest"]["included"])) == [
            "Docs/n03.md",
            "Docs/n01.md",
            "Other/outside.md",
        ]
        assert joined(small) == {e["path"]: e["content"] for e in out["entries"]}


@pytest.mark.covers("bundle_files", "failure")
async def test_bundle_files_failures_change_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(3))
    async with started(root) as vg:
        before = vg.snapshot()
        await vg.err("bundle_files", "validation_error", paths=[])
        await vg.err("bundle_files", "validation_error", paths=["a"] * 1001)
        await vg.err("bundle_files", "validation_error", paths=["Docs/n00.md"], max_tokens=10)
        await vg.err("bundle_files", "validation_error", paths=["Docs/n00.md"], cursor="x")
        page = await vg.ok("bundle_files", paths=["Docs/n00.md", "Docs/n01.md"], max_bytes=300)
        await vg.err("bundle_files", "validation_error", paths=["Docs/n01.md"], cursor=page["next_cursor"])
        assert vg.snapshot() == before


async def test_a_long_bundle_reports_progress(make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"F/n{i:03d}.md": f"# {i}\n" for i in range(150)})
    async with started(root) as vg:
        seen: list[tuple[float, float | None]] = []

        async def report(done: float, total: float | None = None, message: str | None = None) -> None:
            seen.append((done, total))

        result = await vg.app.dispatcher.call("bundle_folder", {"folder": "F"}, principal=vg.principal, progress=report)
        assert not result.is_error and result.structured is not None
        assert len(result.structured["entries"]) == 150
        assert seen and seen[-1] == (150, 150) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.covers("bundle_files", "success")
async def test_many_missing_addresses_still_fit_the_response_cap(make_vault: Callable[..., Path]) -> None:
    root = make_vault(folder_vault(3))
    wanted = [f"Nowhere/{'x' * 900}-{i}" for i in range(200)] + ["Docs/n01.md"]
    async with started(root, governor={"max_response_bytes": 60_000}) as vg:
        all_pages = await pages(vg, "bundle_files", paths=wanted)
        assert len(all_pages) > 2
        assert [m for p in all_pages for m in p["missing"]] == wanted[:-1]
        assert [e["path"] for p in all_pages for e in p["entries"]] == ["Docs/n01.md"]
