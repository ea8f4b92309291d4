"""search_memory and people named by their first name alone, on a planted vault.

    python -m tests.bench.bench_memory_names [--people 36] [--seed 3] [--embeddings none|builtin]

A seeded vault holds `--people` person entities ("Steph Ango"), each with the same kinds of facts
(where they live, work, what they eat, play and read) and mentions of another person by first
name ("Lives next door to Steph", in Priya's note: the words of "Where does Steph live?" too),
beside entities that must never be taken
for a first name: people who share a first name ("Sam Lee" / "Sam Ortiz": "Sam" names neither),
and things whose name starts with a common word ("New York", "Will Power", type place / project).
Questions through the dispatch chain name a person by first name ("Where does Steph live?",
"What does steph eat?") or by full name (the reference); a hit is the asked fact of the asked
person. Reported: Recall@1 and MRR (within 10) per way of naming, and false merges: questions
naming a shared first name or a common word whose top hit is an observation of one of those
entities while the question is about a fact none of them states ("Where does Sam live?" with no
Sam living anywhere is left out: every planted Sam states each fact, so the top hit shows
whether one Sam was favoured: counted when the top 3 all belong to one Sam). Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.conftest import started

FIRST = ["Steph", "Priya", "Tomas", "Ingrid", "Kwame", "Lucia", "Dmitri", "Aiko", "Rafael", "Noor", "Bjorn", "Chiara"]
FIRST += ["Mateo", "Yara", "Olek", "Femi", "Greta", "Hugo", "Isla", "Jonas", "Keiko", "Lars", "Mira", "Nils"]
FIRST += ["Otto", "Paula", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Vera", "Wren", "Xavi", "Yusuf", "Zora"]
LAST = ["Ango", "Raman", "Novak", "Berg", "Mensah", "Ferri", "Orlov", "Tanaka", "Costa", "Haddad", "Lund", "Bruni"]
CITIES = ["Seattle", "Lisbon", "Osaka", "Accra", "Turin", "Bergen", "Quito", "Perth", "Porto", "Minsk"]
COMPANIES = ["Acme", "Globex", "Initech", "Hooli", "Wonka", "Vandelay", "Stark", "Umbrella", "Soylent", "Tyrell"]
FOODS = ["ramen", "paella", "pierogi", "tacos", "curry", "risotto", "falafel", "goulash", "sushi", "pho"]
SPORTS = ["tennis", "rowing", "chess", "squash", "climbing", "fencing", "cycling", "judo", "golf", "polo"]
BOOKS = ["Dune", "Emma", "Ulysses", "Beloved", "Persuasion", "Middlemarch", "Solaris", "Rebecca", "Kindred", "Walden"]
FACTS = {  # question (about {who}) -> the fact's template
    "Where does {who} live?": "Lives in {city} with two cats",
    "Where does {who} work?": "Works at {company} as an engineer",
    "What food does {who} love?": "Loves eating {food} on Fridays",
    "Which sport does {who} play?": "Plays {sport} every weekend",
    "What book is {who} reading?": "Is reading {book} this month",
}
MENTIONS = [  # in another person's note, naming this one by first name: what a first name must beat
    "Lives next door to {first}",
    "Works with {first} some days",
    "Loves cooking for {first}",
    "Plays against {first} at times",
    "Is reading what {first} suggested",
]
SHARED = [("Sam", "Lee"), ("Sam", "Ortiz")]  # a shared first name: it names neither
THINGS = [("New York", "place"), ("Will Power", "project"), ("Open Source Day", "event")]
WORDS = [("Rose", "Tyler", "Rose prices this spring?"), ("Will", "Turner", "Will it rain this weekend?")]  # people too


def plant(people: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    entities: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    names = [f"{f} {rng.choice(LAST)}" for f in FIRST[:people]]
    for name in [*names, *(" ".join(p) for p in SHARED)]:
        facts = {
            q: t.format(
                city=rng.choice(CITIES),
                company=rng.choice(COMPANIES),
                food=rng.choice(FOODS),
                sport=rng.choice(SPORTS),
                book=rng.choice(BOOKS),
            )
            for q, t in FACTS.items()
        }
        entities.append({"name": name, "entityType": "person", "observations": list(facts.values())})
        if name in names:  # the one before names this one
            before = entities[len(entities) - 2] if len(entities) > 1 else None
            if before is not None:
                before["observations"] += [m.format(first=name.split()[0]) for m in MENTIONS]
        first = name.split()[0]
        for q, fact in facts.items():
            if name in names:
                for way, who in (("full", name), ("first", first), ("first_lower", first.lower())):
                    questions.append({"way": way, "q": q.format(who=who), "entity": name, "fact": fact})
            else:
                questions.append({"way": "shared_first", "q": q.format(who=first), "entity": None, "fact": fact})
    for name, kind in THINGS:
        entities.append({"name": name, "entityType": kind, "observations": [f"{name} is on the list for {kind}s"]})
        word = name.split()[0]
        questions.append({"way": "common_word", "q": f"{word} plans for the weekend?", "entity": None, "fact": ""})
    for first, last, question in WORDS:
        entities.append({"name": f"{first} {last}", "entityType": "person", "observations": [f"Met {first} {last}"]})
        questions.append({"way": "common_word", "q": question, "entity": None, "fact": ""})
    return entities, questions


async def run(people: int, seed: int, embeddings: str = "none") -> dict[str, Any]:
    entities, questions = plant(people, seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        async with started(root, embeddings={"provider": embeddings}) as vg:
            await vg.ok("create_entities", entities=entities)
            if embeddings != "none":
                await vg.ok("search_memory", query="warm up")  # reads the entity notes, starts their vectors
                assert vg.app.services.recall is not None
                await vg.app.services.recall.of(next(iter(vg.app.vaults.values()))).settled(within=1800)
            by_way: dict[str, list[float]] = {}
            top1: dict[str, list[bool]] = {}
            merged: dict[str, int] = {}
            for item in questions:
                hits = (await vg.ok("search_memory", query=item["q"], limit=10))["items"]
                way = item["way"]
                if item["entity"] is None:  # nothing to find: is one entity favoured by a first word?
                    lone = {h["entity"] for h in hits[:3]}
                    single = len(lone) == 1 and len(hits) >= 3
                    merged[way] = merged.get(way, 0) + int(single and item["way"] == "shared_first")
                    merged.setdefault(way, 0)
                    common = {t for t, _ in THINGS} | {f"{f} {last}" for f, last, _ in WORDS}
                    if way == "common_word" and hits and hits[0]["entity"] in common:
                        merged[way] += 1
                    continue
                ranks = [i for i, h in enumerate(hits) if h["entity"] == item["entity"] and h["text"] == item["fact"]]
                by_way.setdefault(way, []).append(1 / (ranks[0] + 1) if ranks else 0.0)
                top1.setdefault(way, []).append(bool(ranks) and ranks[0] == 0)
    return {
        "bench": "memory_first_names",
        "people": people,
        "seed": seed,
        "embeddings": embeddings,
        "questions": len(questions),
        "recall_at_1": {w: round(sum(v) / len(v), 3) for w, v in top1.items()},
        "mrr": {w: round(sum(v) / len(v), 3) for w, v in by_way.items()},
        "favoured_by_a_first_word": merged,
        "asked_without_an_answer": {
            w: sum(1 for q in questions if q["way"] == w) for w in ("shared_first", "common_word")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=36)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--embeddings", choices=("none", "builtin"), default="none")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.people, args.seed, args.embeddings)), indent=2))


if __name__ == "__main__":
    main()
