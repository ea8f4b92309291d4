"""The consolidation plane through the dispatch chain: each job on a small planted vault, findings
listed, applied (refused when their notes changed), undone and dismissed; the schedule, restart,
needs and cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.plane import plane as plane_module
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import Harness, started


def entity(name: str, *observations: str, aliases: str = "[]") -> str:
    lines = "\n".join(f"- {o} ^m-{abs(hash((name, o))) % 10**8:08d}" for o in observations)
    return f"---\nname: {name}\nentityType: person\naliases: {aliases}\n---\n# {name}\n\n## Observations\n{lines}\n"


PLANTED = {
    "Memory/Ann.md": entity(
        "Ann",
        "Likes green tea in the morning",
        "likes green tea in the morning.",  # exact duplicate after normalisation
        "She plays the cello in an amateur orchestra",
        "Plays the cello in the amateur orchestra",  # near duplicate
        "Ran the Berlin marathon in 2021",
        "Ran the Berlin marathon in 2023",  # hard negative: another year
        "Does not eat meat",
        "Does eat meat",  # hard negative: negation
        "Works at Acme [date:: 2021-01-01]".replace(" [date:: 2021-01-01]", ""),
    ),
    "Memory/Bob.md": entity("Bob", "Lives in Berlin"),
    "Memory/Bobs.md": entity("Bobs", "Has a dog"),  # the same entity, plural
    "Projects/Alpha.md": "# Alpha\n\nSee [[Projetcs/Beta]] and [[Gamma]]. #ToDo\n",
    "Projects/Beta.md": "# Beta\n\nBack to [[Alpha]]. #todo\n",
    "Gamma.md": "# Gamma\n\nThe Alpha project is mentioned here. #to-do\n",
    "Lonely.md": "# Lonely\n\nNobody links here.\n",
}


async def run(vg: Harness, **args: Any) -> dict[str, Any]:
    return await vg.ok("run_consolidation", wait=True, **args)


async def findings(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    return (await vg.ok("list_findings", limit=500, **args))["items"]


def of_kind(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [i for i in items if i["kind"] == kind]


@pytest.mark.covers("run_consolidation", "success")
@pytest.mark.covers("list_findings", "success")
async def test_a_run_finds_what_was_planted_and_no_hard_negative(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        out = await run(vg)
        assert out["status"] == "done" and {j["job"] for j in out["jobs"]} >= {"duplicates", "audit", "digest"}
        assert all(j["status"] == "ran" for j in out["jobs"] if j["job"] != "summaries"), out["jobs"]
        skipped = next(j for j in out["jobs"] if j["job"] == "summaries")
        assert skipped["status"] == "skipped" and "no inference gateway" in skipped["reason"]
        items = await findings(vg)
        dups = of_kind(items, "duplicate")
        assert [(d["detail"]["kept"], d["detail"]["duplicate"]) for d in dups] == [
            ("Likes green tea in the morning", "likes green tea in the morning.")
        ]
        near = of_kind(items, "near_duplicate")
        assert [d["detail"]["duplicate"] for d in near] == ["Plays the cello in the amateur orchestra"]
        texts = {d["detail"]["duplicate"] for d in dups + near}
        assert not texts & {"Ran the Berlin marathon in 2023", "Does eat meat"}  # hard negatives never merged
        merged = of_kind(items, "duplicate_entity")
        assert [(m["detail"]["keep"], m["detail"]["merge"]) for m in merged] in ([("Bob", "Bobs")], [("Bobs", "Bob")])
        broken = {b["detail"]["target"]: b["detail"]["likely"] for b in of_kind(items, "broken_link")}
        assert broken == {"Projetcs/Beta": "Projects/Beta"}
        variants = of_kind(items, "tag_variant")
        assert len(variants) == 1 and set(variants[0]["detail"]["variants"]) == {"ToDo", "todo", "to-do"}
        assert "Lonely.md" in {o["detail"]["path"] for o in of_kind(items, "orphan")}
        assert of_kind(items, "digest")
        for item in items:  # every plan is a valid plan
            if item["plan"] is not None:
                checked = await vg.ok("validate_plan", plan=item["plan"])
                assert checked["valid"], (item["kind"], checked["problems"])


@pytest.mark.covers("apply_finding", "success")
@pytest.mark.covers("dismiss_finding", "success")
async def test_a_finding_applied_then_undone_and_one_dismissed_stays_dismissed(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        dup = of_kind(await findings(vg), "duplicate")[0]
        before = vg.read("Memory/Ann.md")
        applied = await vg.ok("apply_finding", finding_id=dup["id"])
        assert applied["status"] == "applied"
        after = vg.read("Memory/Ann.md")
        assert "likes green tea in the morning." not in after and "Likes green tea in the morning" in after
        await vg.confirmed("undo_last_plan")
        assert vg.read("Memory/Ann.md") == before
        near = of_kind(await findings(vg), "near_duplicate")[0]
        await vg.ok("dismiss_finding", finding_id=near["id"])
        await run(vg, jobs=["duplicates"])
        assert near["id"] not in {i["id"] for i in await findings(vg)}
        dismissed = await findings(vg, status="dismissed")
        assert [d["id"] for d in dismissed] == [near["id"]]


@pytest.mark.covers("apply_finding", "failure")
@pytest.mark.covers("dismiss_finding", "failure")
async def test_a_finding_whose_note_changed_is_refused_and_found_again(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        dup = of_kind(await findings(vg), "duplicate")[0]
        note = vg.root / "Memory/Ann.md"
        text = note.read_text(encoding="utf-8")  # the kept observation's own text changed by hand
        marked = text.replace("Likes green tea in the morning ^", "Likes green tea in the morning! ^")
        note.write_text(marked, encoding="utf-8")
        refused = await vg.err("apply_finding", "conflict", finding_id=dup["id"])
        assert refused["details"]["path"] == "Memory/Ann.md"
        assert "run_consolidation" in refused["hint"] and "etag" not in refused["hint"]  # the tool takes no etag
        assert "likes green tea in the morning." in note.read_text(encoding="utf-8")
        await run(vg, jobs=["duplicates"])
        again = of_kind(await findings(vg), "duplicate")
        assert again and again[0]["id"] == dup["id"]  # same key: the same finding, refreshed
        await vg.ok("apply_finding", finding_id=dup["id"])
        applied = await vg.err("apply_finding", "conflict", finding_id=dup["id"])  # applied already
        assert "etag" not in applied["hint"] and "undo_last_plan" in applied["hint"]
        await vg.err("dismiss_finding", "note_not_found", finding_id="f-000000000000")
        orphan = of_kind(await findings(vg), "orphan")
        assert orphan == []  # the duplicates job alone ran
        await vg.err("apply_finding", "validation_error", finding_id="nope")


class NeedsAModel:
    name = "synthesis"
    needs: tuple[Need, ...] = ("llm",)

    async def run(self, ctx: JobContext) -> list[Finding]:  # pragma: no cover - never runs: no gateway
        raise AssertionError("ran without its need")


class Broken:
    name = "broken"
    needs: tuple[Need, ...] = ("memory",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        raise RuntimeError("boom")


@pytest.mark.covers("plane_status", "success")
@pytest.mark.covers("run_consolidation", "failure")
async def test_status_shows_jobs_needs_skips_and_failures(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        plane = vg.app.plane
        plane.jobs = (*plane.jobs, NeedsAModel(), Broken())
        out = await run(vg)
        reports = {j["job"]: j for j in out["jobs"]}
        assert reports["synthesis"]["status"] == "skipped" and "gateway" in reports["synthesis"]["reason"]
        assert reports["broken"]["status"] == "failed" and "boom" in reports["broken"]["reason"]
        assert reports["duplicates"]["status"] == "ran"
        status = await vg.ok("plane_status")
        jobs = {j["job"]: j for j in status["jobs"]}
        assert jobs["synthesis"]["available"] is False and jobs["broken"]["last_status"] == "failed"
        assert status["last_run_id"] == out["run_id"] and status["findings"]["duplicate"]["open"] == 1
        assert status["running"] is None and status["gateway"] == "not configured"
        await vg.err("run_consolidation", "validation_error", jobs=["no-such-job"])


@pytest.mark.covers("plane_status", "failure")
@pytest.mark.covers("list_findings", "failure")
async def test_a_caller_sees_only_findings_about_notes_it_may_read(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
    async with started(make_vault(PLANTED), acl=acl) as vg:
        await vg.indexed()
        await run(vg)
        items = await findings(vg)
        assert items and not [i for i in items if any(p.startswith("Memory/") for p in i["paths"])]
        assert not of_kind(items, "duplicate") and of_kind(items, "broken_link")
        assert not of_kind(items, "digest")  # vault-wide: only for a caller no path rule restricts
        status = await vg.ok("plane_status")
        shown: dict[str, dict[str, int]] = {}
        for item in items:
            shown.setdefault(item["kind"], {"open": 0})["open"] += 1
        assert status["findings"] == shown  # counted over what it may see: nothing of the memory folder
        await vg.err("list_findings", "validation_error", limit=0)
        await vg.err("plane_status", "validation_error", verbose=True)


async def test_state_survives_a_restart_and_a_run_can_be_cancelled(make_vault: Callable[..., Path]) -> None:
    root = make_vault(PLANTED)
    async with started(root) as vg:
        await vg.indexed()
        first = await run(vg, jobs=["audit"])
    async with started(root) as vg:
        status = await vg.ok("plane_status")
        assert status["last_run_id"] == first["run_id"] and status["last_run"] is not None
        held = asyncio.Event()

        class Slow:
            name = "slow"
            needs: tuple[Need, ...] = ()

            async def run(self, ctx: JobContext) -> list[Finding]:
                held.set()
                await asyncio.sleep(60)
                return []

        vg.app.plane.jobs = (Slow(),)
        started_run = await vg.ok("run_consolidation", wait=False)
        assert started_run["status"] == "running" and started_run["run_id"].startswith("run-")  # named at once
        await asyncio.wait_for(held.wait(), 60)
        running = (await vg.ok("plane_status"))["running"]
        assert running["job"] == "slow" and running["run_id"] == started_run["run_id"]
        joined = await vg.ok("run_consolidation", wait=False)  # a second start joins the run
        assert joined["run_id"] == started_run["run_id"]
        cancelled = await vg.ok("run_consolidation", cancel=True)
        assert cancelled == {**joined, "status": "cancelled"}
        status = await vg.ok("plane_status")
        assert status["running"] is None and status["last_run_id"] == first["run_id"]  # nothing recorded


async def test_enough_changed_notes_start_a_run_by_themselves(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plane_module, "CHECK_S", 0.05)
    plane = {"after_changes": 2, "interval_minutes": 600, "after_start_minutes": 0}  # due at the first pause
    async with started(make_vault(PLANTED), plane=plane) as vg:
        await vg.indexed()
        assert (await vg.ok("plane_status"))["last_run"] is None
        await vg.ok("create_note", path="New one.md", content="# New\n")
        await vg.ok("create_note", path="New two.md", content="# Two\n")
        for _ in range(1200):  # no calls meanwhile: the run waits for a pause in them
            if (await vg.app.plane.saved("main"))["last_run"] is not None:
                break
            await asyncio.sleep(0.05)
        status = await vg.ok("plane_status")
        assert status["last_run"] is not None and status["next_run"] is not None


async def test_the_first_interval_counts_from_the_first_start_across_restarts(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vault never consolidated yet: its first run is an interval after the server first served
    it, not after the latest restart (a server restarted more often than the interval never ran)."""
    root = make_vault(PLANTED)
    real = plane_module.Plane._due
    waiting: list[tuple[float, asyncio.Event]] = []

    async def due(self: plane_module.Plane, vault: Any, last: float) -> str:
        waiting[-1][1].set()
        waiting[-1] = (last, waiting[-1][1])
        return await real(self, vault, last)

    monkeypatch.setattr(plane_module.Plane, "_due", due)
    firsts: list[Any] = []
    for _ in range(2):
        waiting.append((0.0, asyncio.Event()))
        async with started(root, plane={"after_changes": 10_000, "interval_minutes": 600}) as vg:
            await asyncio.wait_for(waiting[-1][1].wait(), 60)  # the schedule has read its state
            saved = await vg.app.plane.saved("main")
            status = await vg.ok("plane_status")
            assert saved["last_run"] is None and status["next_run"] is not None
            firsts.append((waiting[-1][0], saved["cursor"], status["next_run"]))
    assert firsts[0] == firsts[1] and firsts[0][0] == firsts[0][1]


async def test_auto_apply_applies_the_listed_kinds_as_undoable_plans_and_leaves_the_rest(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(PLANTED), plane={"auto_apply": ["duplicate"]}) as vg:
        await vg.indexed()
        out = await run(vg, jobs=["duplicates"])
        items = {i["kind"]: i for i in await findings(vg, status=None)}
        assert items["duplicate"]["status"] == "applied" and items["duplicate"]["id"] in out["auto_applied"]
        assert "likes green tea in the morning." not in vg.read("Memory/Ann.md")
        assert items["duplicate_entity"]["status"] == "open" and (vg.root / "Memory/Bobs.md").exists()
        assert items["near_duplicate"]["status"] == "open"  # not a listed kind
        run_id = items["duplicate"]["detail"]["applied_run_id"]  # run by the plane: undone by its run id
        await vg.confirmed("undo_last_plan", run_id=run_id)
        assert "likes green tea in the morning." in vg.read("Memory/Ann.md")


async def test_a_group_of_linked_notes_without_a_map_gets_a_map_proposed_and_made(
    make_vault: Callable[..., Path],
) -> None:
    ring = {
        f"Garden/Plant {i}.md": f"# Plant {i}\n\n[[Plant {(i + 1) % 6}]] [[Plant {(i + 2) % 6}]]\n" for i in range(6)
    }
    pair = {"Other/A.md": "# A\n\n[[B]]\n", "Other/B.md": "# B\n\n[[A]]\n"}
    async with started(make_vault({**ring, **pair})) as vg:
        await vg.indexed()
        await run(vg, jobs=["topics"])
        maps = of_kind(await findings(vg), "topic_map")
        assert len(maps) == 1 and maps[0]["detail"]["size"] == 6  # the pair is too small for a map
        await vg.ok("apply_finding", finding_id=maps[0]["id"])
        made = [p for p in (vg.root / "Maps").iterdir()]
        assert len(made) == 1 and all(f"[[Garden/Plant {i}]]" in made[0].read_text() for i in range(6))
        await vg.indexed()
        await run(vg, jobs=["topics"])
        assert of_kind(await findings(vg), "topic_map") == []  # mapped now


async def test_an_observation_whose_source_note_is_gone_is_found_stale(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        batch = [{"entityName": "Bob", "contents": ["Read the draft"], "source": "[[Old Draft]]"}]
        await vg.ok("add_observations", observations=batch)
        batch = [{"entityName": "Bob", "contents": ["Read the gamma note"], "source": "[[Gamma]]"}]
        await vg.ok("add_observations", observations=batch)
        assert "[source:: [[Old Draft]]] ^m-" in vg.read("Memory/Bob.md")  # the link kept as a link
        node = (await vg.ok("open_nodes", names=["Bob"]))["entities"][0]
        assert {"Read the draft", "Read the gamma note"} <= {o["text"] for o in node["observations"]}
        await run(vg, jobs=["stale"])
        stale = of_kind(await findings(vg), "orphaned_observation")
        assert [(s["detail"]["observation"], s["detail"]["source"]) for s in stale] == [("Read the draft", "Old Draft")]


async def test_a_mention_is_the_very_words_of_a_title_not_a_stem_or_a_namesake(make_vault: Callable[..., Path]) -> None:
    vault = {
        "Places/Old Cross.md": "# Old Cross\n\nA square.\n",
        "Trips/Walk.md": "# Walk\n\nWe kept crossing the old crossings all day.\n",  # stems only
        "Trips/Visit.md": "# Visit\n\nWe met at old  cross at noon.\n",  # the very words, case-blind
        "Other/Old Cross.md": "# Old Cross\n\nAnother note of that name: Old Cross.\n",  # a namesake
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        found = {(m["detail"]["path"], m["detail"]["target"]) for m in of_kind(await findings(vg), "unlinked_mention")}
        assert found == {("Trips/Visit.md", "Places/Old Cross.md"), ("Trips/Visit.md", "Other/Old Cross.md")}


async def test_a_run_of_some_jobs_keeps_the_schedule_and_the_other_jobs_reports(
    make_vault: Callable[..., Path],
) -> None:
    from service.plane.plane import full_run_end

    async with started(make_vault(PLANTED)) as vg:
        await vg.indexed()
        plane = vg.app.plane
        vault_id = next(iter(vg.app.vaults))
        partial = await run(vg, jobs=["audit"])  # never fully run: the next full run still scans everything
        saved = await plane.saved(vault_id)
        assert full_run_end(saved) is None and saved["last_run"] is not None
        full = await run(vg)
        anchor = full_run_end(await plane.saved(vault_id))
        status = await vg.ok("plane_status")
        reports = {j["job"]: j["last_status"] for j in status["jobs"]}
        assert None not in reports.values() and status["last_run_id"] == full["run_id"]
        next_run = status["next_run"]
        only = await run(vg, jobs=["duplicates"])
        after = await vg.ok("plane_status")
        assert after["next_run"] == next_run  # the other jobs are not put off by an interval
        assert after["last_run_id"] == only["run_id"] != partial["run_id"]
        assert {j["job"]: j["last_status"] for j in after["jobs"]} == reports  # every job's report kept
        assert anchor is not None and full_run_end(await plane.saved(vault_id)) == anchor
