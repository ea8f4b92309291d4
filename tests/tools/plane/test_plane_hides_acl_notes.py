"""The consolidation plane sees the vault as a reader does: a note the vault's path ACL hides is no
note to it (T2 s61 #1, #2). The audit tells a link to a hidden note as broken, as an absent one
(find_broken_links does the same), never picks a hidden note as a broken link's likely target nor
names one as a mention's target; a stale source that is hidden is gone as an absent one; the
digest and topic maps auto_apply writes into the vault never list, link or quote a hidden note
(nor text the sensitive rules flag). A caller whose token narrows what it may read is shown only
the findings about notes it may read, the notes a finding names among them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from service.types import ALL_SCOPES, Principal
from tests.conftest import started

DENY_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
SECRET = "ghp_" + "A1b2" * 9


def entity(name: str, *observations: str) -> str:
    lines = "".join(f"- {o}\n" for o in observations)
    return f'---\nname: "{name}"\nentityType: person\n---\n# {name}\n\n## Observations\n{lines}'


AUDITED = {
    "Projects/Alpha.md": "# Alpha\nAlpha links [[Zephyrine]] and [[Beta]] and [[Nothere]].\n",
    "Projects/Beta.md": "# Beta\nBeta links [[Alpha]].\n",
    "Projects/Gamma.md": "# Gamma\nSee [[Zephyrine]].\n",
    "Projects/Delta.md": "# Delta\nWe met Zephyrine today.\n",
    "Projects/Eps.md": "# Eps\nSee [[Zephyrin]].\n",
    "Private/Zephyrine.md": "# Zephyrine\nZephyrine content [[Alpha]] [[Beta]].\n",
    "Memory/Ann.md": entity("Ann", "Fact one [source:: Private/Gone.md]", "Fact two [source:: Private/Zephyrine.md]"),
}


async def test_audit_and_stale_findings_tell_a_hidden_note_from_no_absent_one(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(AUDITED), acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        items = (await vg.ok("list_findings", limit=500))["items"]
        broken = {f["detail"]["target"]: f for f in items if f["kind"] == "broken_link"}
        assert {"Nothere", "Zephyrine", "Zephyrin"} <= set(broken), sorted(broken)  # hidden as absent
        assert broken["Zephyrine"]["paths"] == ["Projects/Alpha.md", "Projects/Gamma.md"]
        assert broken["Zephyrin"]["detail"]["likely"] is None and broken["Zephyrin"]["plan"] is None
        assert not [f for f in items if f["kind"] == "unlinked_mention"]  # Delta names only a hidden note
        sources = sorted(f["detail"]["source"] for f in items if f["kind"] == "orphaned_observation")
        assert sources == ["Private/Gone.md", "Private/Zephyrine.md"]  # both gone, as a reader sees them
        assert "Zephyrine.md" not in json.dumps([f for f in items if f["kind"] != "orphaned_observation"])
        assert (await vg.call("find_broken_links")).structured is not None


async def test_a_narrowed_token_is_shown_no_finding_naming_a_note_outside_its_folder(
    make_vault: Callable[..., Path],
) -> None:
    vault = {k: v for k, v in AUDITED.items() if not k.startswith("Memory/")}
    async with started(make_vault(vault)) as vg:  # no path rule: the plane sees Private/ too
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        everyone = (await vg.ok("list_findings", limit=500))["items"]
        mention = [f for f in everyone if f["kind"] == "unlinked_mention"]
        assert [f["detail"]["target"] for f in mention] == ["Private/Zephyrine.md"]
        likely = [f for f in everyone if f["kind"] == "broken_link" and f["detail"]["target"] == "Zephyrin"]
        assert [f["detail"]["likely"] for f in likely] == ["Private/Zephyrine"]
        narrowed = set(ALL_SCOPES) - {"read:vault", "admin"} | {"read:vault/Projects/**"}
        vg.principal = Principal(subject="test", scopes=frozenset(narrowed))
        seen = (await vg.ok("list_findings", limit=500))["items"]
        assert seen and "Private/" not in json.dumps(seen)
        refused = await vg.call("dismiss_finding", finding_id=mention[0]["id"])
        assert refused.structured["error"]["code"] == "note_not_found"


async def test_auto_applied_digest_and_map_leave_out_hidden_and_flagged_notes(
    make_vault: Callable[..., Path],
) -> None:
    ring = {
        f"Private/Ring{i}.md": f"# Ring{i}\nThe launch code of ring {i} is ORCA-{i}42 here.\n"
        + "".join(f"[[Ring{j}]] " for j in range(5) if j != i)
        for i in range(5)
    }
    vault = {
        **ring,
        "Projects/Alpha.md": "# Alpha\nAlpha is the first garden project.\nSee [[Ring0]] and [[Beta]].\n",
        "Projects/Beta.md": "# Beta\nBeta is about the garden plans.\n",
        "Projects/Keys.md": f"# Keys\nThe deploy key is {SECRET} for the garden.\n",
        "Memory/Hidden Boss.md": entity("Hidden Boss", "Runs the ring"),
    }
    acl = {"prefix_rules": [*DENY_PRIVATE["prefix_rules"], {"path": "Memory/Hidden Boss.md", "read": "deny"}]}
    async with started(make_vault(vault), acl=acl, plane={"auto_apply": ["digest", "topic_map"]}) as vg:
        await vg.indexed()
        assert (await vg.ok("run_consolidation", wait=True))["status"] == "done"
        written = {p.relative_to(vg.root).as_posix(): p.read_text() for p in vg.root.glob("*/*.md")}
        digests = [text for path, text in written.items() if path.startswith("Digests/")]
        assert len(digests) == 1 and "[[Projects/Beta|Beta]]" in digests[0], written.keys()
        plane_notes = json.dumps([t for p, t in written.items() if p.startswith(("Digests/", "Maps/"))])
        for leak in ("Ring", "ORCA", "Private", SECRET, "Projects/Keys", "Hidden Boss"):
            assert leak not in plane_notes, leak
