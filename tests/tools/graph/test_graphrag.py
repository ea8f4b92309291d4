"""graphrag_query: hybrid seeds expanded along outlinks and backlinks (bounded), fused by rank,
each result with the link path from its seed; a note the caller may not read is never a seed, a
hop or a result; progress after each hop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.semantic.helpers import VAULT, halves_meet, ranking_inputs, semantic, settled

NOTES: dict[str, str] = {
    **VAULT,
    "Pets/Cats.md": "---\ntags: [animals]\n---\n# Cats\n\nA kitten needs vaccinations, a litter box and toys to "
    "scratch. Ask [[Clinic]].\n",
    "Pets/Clinic.md": "# Clinic\n\nDr. Okafor, Elm Street 4, open weekdays from eight.\n",
    "Journal/Adoption day.md": "# Adoption day\n\nWe brought home [[Cats|Miso]] from the shelter.\n",
    "Hub.md": "# Hub\n\nThe garden herbarium index.\n\n" + " ".join(f"[[Leaf {i}]]" for i in range(6)) + "\n",
    **{f"Leaves/Leaf {i}.md": f"# Leaf {i}\n\nPressed leaf number {i}, linked from [[Hub]].\n" for i in range(6)},
}
QUESTION = "caring for a kitten"


def _items(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["path"]: i for i in out["items"]}


@pytest.mark.covers("graphrag_query", "success")
async def test_seeds_expand_along_links_and_backlinks_with_their_paths(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        out = await h.ok("graphrag_query", query=QUESTION, seeds=1, hops=1, limit=20)
        assert out["seeds"] == ["Pets/Cats.md"] and out["items"][0]["path"] == "Pets/Cats.md"
        items = _items(out)
        clinic, adoption = items["Pets/Clinic.md"], items["Journal/Adoption day.md"]
        assert clinic["distance"] == 1 and clinic["seed"] == "Pets/Cats.md"
        assert clinic["link_path"] == [{"source": "Pets/Cats.md", "target": "Pets/Clinic.md", "direction": "outlink"}]
        assert adoption["link_path"] == [
            {"source": "Pets/Cats.md", "target": "Journal/Adoption day.md", "direction": "backlink"}
        ]
        assert items["Pets/Cats.md"]["distance"] == 0 and items["Pets/Cats.md"]["link_path"] == []
        # the linked notes rank above notes reached by neither words, meaning nor links
        order = [i["path"] for i in out["items"]]
        assert order.index("Pets/Clinic.md") < order.index("Travel/Japan.md")
        plain = await h.ok("graphrag_query", query=QUESTION, hops=0, limit=20)
        hybrid = await h.ok("search_hybrid", query=QUESTION, limit=20)
        assert [i["path"] for i in plain["items"]] == [i["path"] for i in hybrid["items"]]
        assert all(i["distance"] == 0 or i["distance"] is None for i in plain["items"])


@pytest.mark.covers("graphrag_query", "success")
async def test_fan_out_and_hops_bound_the_expansion(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        out = await h.ok("graphrag_query", query="garden herbarium index", seeds=1, hops=1, fan_out=2, limit=50)
        assert out["seeds"] == ["Hub.md"] and out["truncated"] is True
        assert out["reached"] == 3
        reached = [i for i in out["items"] if (i["distance"] or 0) > 0]
        assert len(reached) == 2 and all(i["seed"] == "Hub.md" for i in reached)
        two = await h.ok("graphrag_query", query=QUESTION, seeds=1, hops=2, fan_out=10, limit=50)
        assert max(i["distance"] or 0 for i in two["items"]) <= 2
        assert all(len(i["link_path"]) == (i["distance"] or 0) for i in two["items"])
        for item in two["items"]:  # every path is a chain of hops from the seed to the note
            hops = item["link_path"]
            if hops:
                assert hops[0]["source"] == item["seed"] and hops[-1]["target"] == item["path"]
                assert all(a["target"] == b["source"] for a, b in zip(hops, hops[1:], strict=False))


@pytest.mark.covers("graphrag_query", "success")
async def test_progress_is_reported_per_hop(make_vault: Callable[..., Path]) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with semantic(make_vault(NOTES)) as h:
        args = {"query": QUESTION, "hops": 2}
        result = await h.app.dispatcher.call("graphrag_query", args, principal=h.principal, progress=report)
        assert not result.is_error
    assert [(d, t) for d, t, _ in seen] == [(1, 2), (2, 2)]
    assert all(m and "hop" in m for _, _, m in seen)


BRIDGED = {
    **NOTES,
    "Pets/Cats.md": "# Cats\n\nA kitten needs vaccinations and toys. See [[Secret plan]].\n",
    "Private/Secret plan.md": "# Secret plan\n\nMove to [[Beyond]] next year.\n",
    "Elsewhere/Beyond.md": "# Beyond\n\nA quiet valley.\n",
}
ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


@pytest.mark.covers("graphrag_query", "success")
async def test_a_note_the_caller_may_not_read_is_never_a_seed_hop_or_result(make_vault: Callable[..., Path]) -> None:
    question = "kitten vaccinations and the secret plan for the chewed sofa"
    async with semantic(make_vault(BRIDGED)) as h:  # readable, the hidden note bridges to Beyond
        open_ = _items(await h.ok("graphrag_query", query=question, hops=3, seeds=2, limit=50))
    assert "Private/Secret plan.md" in [s["target"] for s in open_["Elsewhere/Beyond.md"]["link_path"]]
    async with semantic(make_vault(BRIDGED), acl=ACL) as h:
        out = await h.ok("graphrag_query", query=question, hops=3, seeds=2, limit=50)
    assert "Private" not in str(out)
    # Beyond is reachable only through the hidden note: it is not reached
    assert all(i["path"] != "Elsewhere/Beyond.md" or i["distance"] is None for i in out["items"])
    without = {k: v for k, v in BRIDGED.items() if not k.startswith("Private/")}
    async with semantic(make_vault(without)) as h:
        absent = await h.ok("graphrag_query", query=question, hops=3, seeds=2, limit=50)
    assert out["reached"] == absent["reached"] and out["seeds"] == absent["seeds"]
    assert [(i["path"], i["distance"], i["link_path"]) for i in out["items"]] == [
        (i["path"], i["distance"], i["link_path"]) for i in absent["items"]
    ]


@pytest.mark.covers("graphrag_query", "failure")
async def test_graphrag_query_failures(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        await h.err("graphrag_query", "validation_error", query="x", hops=4)
        await h.err("graphrag_query", "validation_error", query="x", seeds=0)
        await h.err("graphrag_query", "validation_error", query="x", fan_out=51)
        await h.err("graphrag_query", "validation_error", query="x", graph_weight=-1)
        await h.err("graphrag_query", "validation_error", query="x", depth=2)
        await h.err("graphrag_query", "note_not_found", query="x", folder="Nowhere")
    async with started(make_vault(NOTES)) as h:
        await h.err("graphrag_query", "mode_unavailable", query="x")


async def test_the_expansion_follows_links_written_after_the_last_query(make_vault: Callable[..., Path]) -> None:
    """The walk reads the links from memory per index generation: a link added since the
    previous call is followed at the next one."""
    async with semantic(make_vault(NOTES)) as h:
        first = await h.ok("graphrag_query", query=QUESTION, seeds=10, hops=1, limit=50)
        assert all(s["target"] != "Travel/Japan.md" for i in first["items"] for s in i["link_path"] or [])
        await h.ok("append_note", path="Pets/Clinic.md", content="\nThe vet moved to [[Japan]].\n")
        await settled(h)
        out = await h.ok("graphrag_query", query=QUESTION, seeds=10, hops=1, limit=50)
        steps = [s for i in out["items"] for s in i["link_path"] or []]
        assert {"source": "Pets/Clinic.md", "target": "Travel/Japan.md", "direction": "outlink"} in steps, out


def test_link_evidence_settles_near_ties_and_cannot_bury_a_clear_winner() -> None:
    from service.graph.adjacency import LinkGraph
    from service.graph.expand import Expansion, Reached
    from service.tools.graph.graphrag import evidence, fuse

    graph = LinkGraph.from_edges([("b.md", "d.md"), ("c.md", "d.md"), ("a.md", "e.md"), ("hub.md", "d.md")])
    hybrid = [("a.md", 1.0), ("b.md", 0.70), ("c.md", 0.69), ("x.md", 0.68), ("d.md", 0.66), ("y.md", 0.2)]
    score_of = dict(hybrid)
    reached = {p: Reached(p, p, i, 0, ()) for i, p in enumerate(["a.md", "b.md", "c.md", "x.md", "d.md"])}
    reached["e.md"] = Reached("e.md", "a.md", 0, 1, (), {"a.md"})
    links = evidence(Expansion(reached, False), graph, list(reached)[:5], score_of, {"d.md": 3, "e.md": 1})
    # d.md: linked from two seeds (0.70 + 0.69) / sqrt(1 + 3 backlinks); e.md: from a.md, / sqrt(2)
    assert links["d.md"] == (0.70 + 0.69) / 2 and links["e.md"] == 1.0 / 2**0.5
    order = [p for p, _ in fuse(hybrid, links, 0.12)]
    assert order[0] == "a.md"  # the clear winner stays first
    assert order.index("d.md") < order.index("x.md")  # two top hits link to it: it passes a near tie
    assert order.index("e.md") < order.index("y.md")  # outside the hybrid list, it enters above the weakest
    assert [p for p, _ in fuse(hybrid, links, 0.0)] == [*(p for p, _ in hybrid), "e.md"]


async def test_the_hybrid_halves_run_at_once_and_rank_as_on_one_connection(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seeds' ranking runs its BM25 half and its vector half side by side on two readers (each
    waits here, bounded, until the other has started: one after the other, the first would wait
    in vain), and ranks as `search.hybrid_rank` does with both halves on one connection."""

    from service.semantic import search as sem

    async with semantic(make_vault(NOTES)) as h:
        engine, vid, use, vector, keep = await ranking_inputs(h, QUESTION)
        expected = await h.app.services.db.run_read(
            lambda conn: sem.hybrid_rank(engine, conn, vid, QUESTION, vector, 20, keep, use.model)[:20]
        )
        halves_meet(monkeypatch, "text_candidates")
        out = await h.ok("graphrag_query", query=QUESTION, hops=0, seeds=20, limit=20)
        assert [(i["path"], i["score"]) for i in out["items"]] == [(e.path, round(e.score, 4)) for e in expected]
        assert [i["text_rank"] for i in out["items"]] == [
            None if e.text_rank is None else e.text_rank + 1 for e in expected
        ]
