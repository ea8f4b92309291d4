"""Consolidation quality on a planted vault: precision and recall of each finding kind.

    python -m tests.bench.bench_consolidation [--entities 200] [--seed 7] [--families report|tune|all]

A generator of the project's own (seeded) writes a vault with memory entities and plants, per
entity, facts from template families; some are repeated exactly (case and end punctuation
changed), paraphrased, contradicted by a later dated fact, or paired with a hard negative (the
same words with another number, date, name or negation, which must never be merged; where that
is another count of one thing, "Has 3 cats at home" / "Has 5 cats at home", a contradiction too). Beside the
memory: entities that are one (accents, case, a plural, an alias) beside pairs that only look
alike, notes with misspelt links (broken links), tag variants (`#ToDo` / `#todo` / `#to-do`),
orphans, notes that name another note's title without linking it (unlinked mentions; a note that
names it and links it too must not count), observations whose source note is gone, and captures
and experiences made stale (taken 30 days ago; a filed capture and a promoted one must not count).
One `run_consolidation` through the dispatch chain (and `--audit-runs` - 1 more of the audit,
which looks for the titles of unlinked mentions that fit in a run, 5000 at most, each run after
the last); each
finding kind is scored against what was planted. The template families are split in two: `tune`
(the ones the thresholds were chosen on) and `report` (held out); `--families` picks which ones
plant the memory facts; `hard` (held out from both, not in `all`) plants facts as people write
them: another unit's spelling ("5 km" / "5 kilometres"), a date in another format ("March 2019" /
"2019-03"), typos, a synonym ("weekdays" / "Monday to Friday"); `held` (not in `all` either,
written before the verb and word-order rules of B5 s79 and never tuned on) another verb or word
order ("Bought" / "Purchased a house", "the university of X" / "X university"). The run lifts
`[plane] max_findings` (`--max-findings`; the server's is 500, where `all`'s 657 duplicates stop
the job: `capped` names such jobs), so that the figures score the rules, not the cap;
`missed_duplicates`, `merged_hard_negatives` and `duplicates_not_planted` list the pairs.
Targets (issue 40): duplicates precision >= 0.95 and recall >= 0.90, hard negatives merged
<= 2 %, contradictions precision >= 0.90 and recall >= 0.80, broken links,
orphans and tag variants exact. Beside them, entities of their own state a claim and then, in
other words, one that contradicts it or one that only adds a detail to it (`CLAIMS`, split as the
families): `claims_in_other_words` scores the contradictions found there and counts the details
read as contradictions (none should be) and the pairs merged as duplicates; and entities whose
second fact is the first's words about another thing (`SWAPS`: "Plays the piano" / "Plays the
guitar"), none of which may be merged (`one_thing_swapped`); and entities that state one
attribute twice (`HISTORIES`, `past_tense_histories`): both as history ("Worked at Acme" / "Worked
at Globex", both true), a past fact then the present ("Worked at Acme" / "Works at Globex", a
change), neither a contradiction, or two present facts, which are. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import started

CITIES = ["Paris", "Rome", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague", "Oslo", "Dublin", "Warsaw"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka", "Cyberdyne", "Soylent"]
FOODS = ["pizza", "sushi", "ramen", "tacos", "curry", "paella", "falafel", "risotto", "goulash", "pierogi"]
THINGS = ["guitar", "violin", "piano", "cello", "drums", "flute", "trumpet", "harp", "banjo", "saxophone"]
NAMES = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas"]

# family: (base, close paraphrase, loose paraphrase, hard negative of the base); {…} drawn per entity
FAMILIES: dict[str, dict[str, tuple[str, str, str, str]]] = {
    "tune": {
        "food": (
            "Likes {food} for dinner",
            "She really likes {food} for dinner",
            "Enjoys eating {food} in the evening",
            "Does not like {food} for dinner",
        ),
        "music": (
            "Plays the {thing} every weekend",
            "Plays the {thing} on every weekend",
            "Practises {thing} on Saturdays and Sundays",
            "Plays the {thing} every weekend since {year}",
        ),
        "trip": (
            "Visited {city} in {year}",
            "Went and visited {city} in {year}",
            "Made a trip to {city} back in {year}",
            "Visited {city} in {year2}",
        ),
    },
    "report": {
        "friend": (
            "Met {name} at the spring conference",
            "Met {name} at the spring conference again",
            "Got to know {name} during the conference in spring",
            "Met {name2} at the spring conference",
        ),
        "pets": (
            "Has {n} cats at home",
            "Has {n} cats living at home",
            "Keeps {n} cats in the house",
            "Has {n2} cats at home",
        ),
        "study": (
            "Studied chemistry at {city} university",
            "Studied chemistry at the {city} university",
            "Took a chemistry degree in {city}",
            "Never studied chemistry at {city} university",
        ),
    },
    # held out from both (`--families hard`, not in `all`, whose figures stay comparable): written
    # as people write, with another unit's spelling, a date in another format, typos, a synonym
    "hard": {
        "running": (
            "Runs {km} km every morning",
            "Runs {km} kilometres every morning",
            "Goes for a {km} km run each morning",
            "Runs {km} miles every morning",
        ),
        "dog": (
            "Adopted a dog in March {year}",
            "Adopted a dog in {year}-03",
            "Took in a rescue dog in March {year}",
            "Adopted a dog in May {year}",
        ),
        "typos": (
            "Studied chemistry at {city} university",
            "Studied chemsitry at {city} univeristy",
            "Read chemistry at the university of {city}",
            "Studied physics at {city} university",
        ),
        "practice": (
            "Practises the {thing} on weekdays",
            "Practises the {thing} from Monday to Friday",
            "Rehearses on the {thing} every weekday",
            "Practises the {thing} on Mondays and Fridays",
        ),
    },
    # held out from all the above and from the rules (`--families held`, B5 s79: written before
    # the word-order and synonym rules and never tuned on): the same fact in another word order,
    # another verb, a detail added
    "held": {
        "degree": (
            "Graduated from {city} university in {year}",
            "Graduated from the university of {city} in {year}",
            "Got a degree from {city} university in {year}",
            "Graduated from {city} university in {year2}",
        ),
        "house": (
            "Bought a house in {city} in {year}",
            "Purchased a house in {city} in {year}",
            "Became a homeowner in {city} in {year}",
            "Bought a house in {city} in {year2}",
        ),
        "volunteer": (
            "Volunteers at the {city} food bank on Sundays",
            "Volunteers on Sundays at the food bank in {city}",
            "Helps out at the {city} food bank every Sunday",
            "Volunteers at the {city} food bank on Saturdays",
        ),
        "move": (
            "Relocated to {city} for work in {year}",
            "Relocated to {city} in {year} for work",
            "Took a job in {city} and moved there in {year}",
            "Relocated to {city} for work in {year2}",
        ),
    },
}


COUNTS = {"pets"}  # families whose hard negative is another count of one thing: a contradiction

# Claims stated again in other words: (older, a newer one that contradicts it, a newer one that
# only adds a detail and must not). Planted on entities of their own ("Claim 0000"), drawn from a
# random stream of their own (the figures above stay those of the same vault). Split as FAMILIES.
CLAIMS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "tune": (
        ("Works at {company}", "Works for {company2}", "Works at {company} as a {role}"),
        ("Lives in {city}", "Lives in {city2}", "Lives in {city} with {name}"),
        ("Works as a {role}", "Works as a {role2}", "Works as a {role} for {company}"),
    ),
    "report": (
        ("Is employed by {company}", "Works at {company2}", "Works at {company} on the {role} team"),
        ("Lives in {city}", "Is based in {city2}", "Lives in {city} near the old harbour"),
        ("Works as a {role}", "Role is {role2}", "Works as a {role} at {company} since {year}"),
        ("Works for {company}", "Is employed by {company2}", "Works for {company} from home"),
    ),
}
# One thing swapped for another: (a fact, the same words about another thing), dated later; two
# facts, never near duplicates (whose plan deletes one). Entities of their own ("Swap 0000"),
# from a random stream of their own; split as the families.
SWAPS: dict[str, tuple[tuple[str, str], ...]] = {
    "tune": (
        ("Likes {food} for dinner", "Likes {food2} for dinner"),
        ("Plays the {thing} every weekend", "Plays the {thing2} every weekend"),
        ("Drinks {drink} every morning", "Drinks {drink2} every morning"),
    ),
    "report": (
        ("Favorite color is {color}", "Favorite color is {color2}"),
        ("Plays the {thing}", "Plays the {thing2}"),
        ("Orders {food} at lunch", "Orders {food2} at lunch"),
        ("Has a {drink} allergy", "Has a {drink2} allergy"),
    ),
}
# One attribute stated twice, dated apart, as history or as the present: (kind, older, newer).
# "history": both past tense ("Worked at Acme" / "Worked at Globex"), both true as history, no
# contradiction; "change": a past fact, then the present ("Worked at Acme" / "Works at Globex"), a
# change and no contradiction of the present, also where the value is the same ("Worked at Acme" /
# "Works at Acme": back there; never merged as duplicates); "present": two present facts, or a present perfect
# that still holds ("Has worked at Acme since 2015"), a contradiction. Entities of their own
# ("History 0000"), from a random stream of their own; split as the families.
HISTORIES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "tune": (
        ("history", "Worked at {company}", "Worked at {company2}"),
        ("history", "Lived in {city}", "Lived in {city2}"),
        ("history", "Worked as a {role}", "Worked as a {role2}"),
        ("change", "Worked at {company}", "Works at {company2}"),
        ("change", "Lived in {city}", "Lives in {city2}"),
        ("change", "Worked at {company}", "Works at {company}"),
        ("present", "Works at {company}", "Works at {company2}"),
        ("present", "Has lived in {city} since {year}", "Lives in {city2}"),
    ),
    "report": (
        ("history", "Was based in {city}", "Was based in {city2}"),
        ("history", "Was employed by {company}", "Worked for {company2}"),
        ("history", "Role was {role}", "Worked as a {role2}"),
        ("change", "Was based in {city}", "Is based in {city2}"),
        ("change", "Worked as a {role}", "Role is {role2}"),
        ("change", "Was based in {city}", "Is based in {city}"),
        ("present", "Lives in {city}", "Lives in {city2}"),
        ("present", "Has worked at {company} since {year}", "Works at {company2}"),
    ),
}
DRINKS = ["tea", "coffee", "juice", "milk", "cocoa", "lemonade"]
COLORS = ["green", "blue", "red", "yellow", "purple", "orange"]
ROLES = ["designer", "nurse", "teacher", "lawyer", "pilot", "chef", "editor", "engineer", "baker", "tailor"]


def draw(rng: random.Random) -> dict[str, Any]:
    year = rng.randint(2000, 2020)
    n = rng.randint(2, 5)
    name, name2 = rng.sample(NAMES, 2)
    return {
        "food": rng.choice(FOODS),
        "thing": rng.choice(THINGS),
        "city": rng.choice(CITIES),
        "year": year,
        "year2": year + rng.randint(1, 3),
        "name": name,
        "name2": name2,
        "n": n,
        "n2": n + rng.randint(1, 3),
        "km": n + 3,  # no draw of its own: the other families' values stay those of the same seed
    }


def entity_note(name: str, lines: list[tuple[str, str | None]], aliases: tuple[str, ...] = (), source: str = "") -> str:
    body = "\n".join(
        f"- {text}" + (f" [date:: {date}]" if date else "") + f" ^m-{i:06d}" for i, (text, date) in enumerate(lines)
    )
    if source:
        body += f"\n- Wrote it up [source:: {source}] ^m-src"
    also = f"aliases: [{', '.join(aliases)}]\n" if aliases else ""
    return f"---\nname: {name}\nentityType: person\n{also}---\n# {name}\n\n## Observations\n{body}\n"


# entities that are one (kept first: the older note) and pairs that only look alike
SAME_ENTITIES = [
    ("Zoë Martín", "Zoe Martin"),
    ("André Lefèvre", "Andre Lefevre"),
    ("ACME Labs", "acme labs"),
    ("Nordic Heron", "Nordic Herons"),
    ("Blue Orchard", "Blue Orchards"),
]
ALIASED = [("Robert Smith", "Bob Smith"), ("Katherine Ode", "Kate Ode")]  # the second is an alias of the first
LOOK_ALIKE = [
    ("Maria Costa", "Mario Costa"),
    ("Ann Lee", "Anne Lee"),
    ("Lab North", "Lab South"),
    ("Cross", "Crossing"),
]


def plant_entities(files: dict[str, str], truth: dict[str, Any]) -> None:
    one = [(a, b, ()) for a, b in SAME_ENTITIES] + [(a, b, (b,)) for a, b in ALIASED]
    for keep, merge, aliases in one:
        files[f"Memory/{keep}.md"] = entity_note(keep, [(f"Known as {keep}", None)], aliases)
        files[f"Memory/{merge}.md"] = entity_note(merge, [(f"Also written {merge}", None)])
    for a, b in LOOK_ALIKE:
        files[f"Memory/{a}.md"] = entity_note(a, [(f"Known as {a}", None)])
        files[f"Memory/{b}.md"] = entity_note(b, [(f"Known as {b}", None)])
    truth["same_entities"] = {frozenset({a, b}) for a, b, _ in one}
    truth["look_alike"] = {frozenset(pair) for pair in LOOK_ALIKE}


def plant(entities: int, seed: int, families: str) -> tuple[dict[str, str], dict[str, Any]]:
    rng = random.Random(seed)
    chosen = {**FAMILIES["tune"], **FAMILIES["report"]} if families == "all" else FAMILIES[families]
    files: dict[str, str] = {}
    families = "all" if families in ("hard", "held") else families  # the claims, swaps and histories of all
    truth: dict[str, Any] = {
        "duplicates": set(),
        "hard_negatives": set(),
        "contradictions": set(),
        "orphaned": set(),
        "gone_sources": set(),
    }
    for e in range(entities):
        name = f"Person {e:04d}"
        lines: list[tuple[str, str | None]] = []
        counts: list[tuple[str, str]] = []
        for family, (base, para, loose, negative) in sorted(chosen.items()):
            values = draw(rng)
            fact = base.format(**values)
            lines.append((fact, None))
            roll = rng.random()
            copy = ""
            if roll < 0.2:  # an exact repeat: case and end punctuation changed
                copy = fact.lower() + "."
            elif roll < 0.4:
                copy = para.format(**values)
            elif roll < 0.55:
                copy = loose.format(**values)
            elif roll < 0.8:
                lines.append((negative.format(**values), None))
                truth["hard_negatives"].add((name, frozenset({fact, negative.format(**values)})))
                if family in COUNTS:
                    counts.append((fact, negative.format(**values)))
            if copy:
                lines.append((copy, None))
                truth["duplicates"].add((name, frozenset({fact, copy})))
        if rng.random() < 0.5:  # a dated contradiction: the newer employer or city supersedes
            kind = rng.choice(["works", "lives"])
            a, b = rng.sample(COMPANIES if kind == "works" else CITIES, 2)
            older = f"Works at {a}" if kind == "works" else f"Lives in {a}"
            newer = f"Works at {b}" if kind == "works" else f"Moved to {b}"
            lines.append((older, "2021-03-01"))
            lines.append((newer, "2023-06-01"))
            truth["contradictions"].add((name, older, newer))
        rng.shuffle(lines)
        order = [text for text, _ in lines]
        for pair in counts:  # both undated: the one first in the note is the older
            truth["contradictions"].add((name, *sorted(pair, key=order.index)))
        source = ""
        if e % 25 == 0:  # an observation citing a note: gone for half of them
            source = f"[[Gone Note {e}]]" if e % 50 == 0 else "[[Topic 001]]"
            if e % 50 == 0:
                truth["orphaned"].add(name)
                truth["gone_sources"].add(f"Gone Note {e}")  # a broken link too
        files[f"Memory/{name}.md"] = entity_note(name, lines, source=source)
    plant_entities(files, truth)
    plant_claims(files, truth, entities // 2, seed, families)
    plant_swaps(files, truth, entities // 2, seed, families)
    plant_histories(files, truth, entities // 2, seed, families)
    # the vault beside the memory
    notes = [f"Topic {i:03d}" for i in range(60)]
    broken = set()
    for i, title in enumerate(notes):
        target = notes[(i + 1) % len(notes)]
        if i % 10 == 3:  # a misspelt link: two letters swapped
            wrong = target[:1] + target[2] + target[1] + target[3:]
            broken.add(wrong)
            target = wrong
        tag = ["ToDo", "todo", "to-do"][i % 3] if i % 5 == 0 else "topic"
        files[f"Topics/{title}.md"] = f"# {title}\n\nSee [[{target}]]. #{tag}\n"
    for i in range(5):
        files[f"Loose/Orphan {i}.md"] = f"# Orphan {i}\n\nNothing links here and this links nowhere.\n"
    truth["mentions"] = set()
    for i in range(8):  # names a topic without linking it (it links another, so it is no orphan)
        named, linked = notes[(7 * i + 5) % len(notes)], notes[(7 * i + 9) % len(notes)]
        files[f"Meetings/Meeting {i}.md"] = f"# Meeting {i}\n\nWe went through {named} at length. See [[{linked}]].\n"
        truth["mentions"].add((f"Meetings/Meeting {i}.md", f"Topics/{named}.md"))
    for i in range(4):  # names it and links it: no finding
        named = notes[(11 * i + 2) % len(notes)]
        files[f"Meetings/Linked {i}.md"] = f"# Linked {i}\n\nWe went through {named}: [[{named}]].\n"
    truth["broken"] = broken | truth["gone_sources"]
    truth["orphans"] = {f"Loose/Orphan {i}.md" for i in range(5)}
    truth["tag_variants"] = {frozenset({"ToDo", "todo", "to-do"})}
    return files, truth


def plant_claims(files: dict[str, str], truth: dict[str, Any], entities: int, seed: int, families: str) -> None:
    """Per entity one claim, then (dated later) a claim that contradicts it or one that only adds
    a detail to it ("Works at Acme" / "Works at Acme as a nurse"): the second must never be read
    as a contradiction (its plan would mark a fact that holds as superseded)."""
    rng = random.Random(seed + 1)
    chosen = [*CLAIMS["tune"], *CLAIMS["report"]] if families == "all" else list(CLAIMS[families])
    truth["claim_contradictions"], truth["claim_details"] = set(), set()
    for e in range(entities):
        name = f"Claim {e:04d}"
        older, contradicting, detailed = rng.choice(chosen)
        company, company2 = rng.sample(COMPANIES, 2)
        city, city2 = rng.sample(CITIES, 2)
        role, role2 = rng.sample(ROLES, 2)
        values = {"company": company, "company2": company2, "city": city, "city2": city2, "role": role}
        values |= {"role2": role2, "name": rng.choice(NAMES), "year": rng.randint(2000, 2020)}
        first = older.format(**values)
        contradicts = rng.random() < 0.5
        second = (contradicting if contradicts else detailed).format(**values)
        files[f"Memory/{name}.md"] = entity_note(name, [(first, "2021-03-01"), (second, "2023-06-01")])
        truth["claim_contradictions" if contradicts else "claim_details"].add((name, first, second))


def plant_swaps(files: dict[str, str], truth: dict[str, Any], entities: int, seed: int, families: str) -> None:
    """Per entity a fact, then (dated later) the same words about another thing: two facts."""
    rng = random.Random(seed + 2)
    chosen = [*SWAPS["tune"], *SWAPS["report"]] if families == "all" else list(SWAPS[families])
    truth["swaps"] = entities
    for e in range(entities):
        first, second = rng.choice(chosen)
        food, food2 = rng.sample(FOODS, 2)
        thing, thing2 = rng.sample(THINGS, 2)
        drink, drink2 = rng.sample(DRINKS, 2)
        color, color2 = rng.sample(COLORS, 2)
        fill = {"food": food, "food2": food2, "thing": thing, "thing2": thing2}
        fill |= {"drink": drink, "drink2": drink2, "color": color, "color2": color2}
        lines = [(first.format(**fill), "2020-01-01"), (second.format(**fill), "2024-01-01")]
        files[f"Memory/Swap {e:04d}.md"] = entity_note(f"Swap {e:04d}", lines)


def plant_histories(files: dict[str, str], truth: dict[str, Any], entities: int, seed: int, families: str) -> None:
    """Per entity one attribute stated twice (`HISTORIES`): as history, as a change, or as two
    present facts (a contradiction, the only kind to be found)."""
    rng = random.Random(seed + 3)
    chosen = [*HISTORIES["tune"], *HISTORIES["report"]] if families == "all" else list(HISTORIES[families])
    truth["histories"] = {"history": set(), "change": set(), "present": set()}
    for e in range(entities):
        name = f"History {e:04d}"
        kind, older, newer = chosen[e % len(chosen)]  # every pair as often as the others
        company, company2 = rng.sample(COMPANIES, 2)
        city, city2 = rng.sample(CITIES, 2)
        role, role2 = rng.sample(ROLES, 2)
        values = {"company": company, "company2": company2, "city": city, "city2": city2, "role": role}
        values |= {"role2": role2, "year": rng.randint(2000, 2015)}
        first, second = older.format(**values), newer.format(**values)
        files[f"Memory/{name}.md"] = entity_note(name, [(first, "2021-03-01"), (second, "2023-06-01")])
        truth["histories"][kind].add((name, first, second))


async def plant_stale(vg: Any) -> set[str]:
    """Captures and experiences through the tools, five of each then dated 30 days back; one old
    capture filed and one old experience promoted (no longer stale), two of each left recent."""
    captures = [(await vg.ok("capture", text=f"Call the plumber about job {i}"))["id"] for i in range(7)]
    experiences = [
        (await vg.ok("record_experience", kind="worked", text=f"Batching helped run {i}"))["experience"]["id"]
        for i in range(7)
    ]
    old = captures[:5] + experiences[:5]
    marks = ",".join("?" * 5)
    month = 30 * 86_400
    await vg.app.plane.state.run_write(
        lambda c: c.execute(
            f"UPDATE capture_queue SET created_at = created_at - {month} WHERE id IN ({marks})", captures[:5]
        )
    )
    store = vg.app.services.experiences
    await store.db.run_write(
        lambda c: c.execute(
            f"UPDATE experiences SET created_at = created_at - {month} WHERE id IN ({marks})", experiences[:5]
        )
    )
    await vg.ok("process_capture", capture_id=captures[0], action="discard")
    token = await vg.token_for("promote_experience", experience_id=experiences[0], entity="Person 0001")
    await vg.ok("promote_experience", experience_id=experiences[0], entity="Person 0001", elicit_token=token)
    return set(old) - {captures[0], experiences[0]}


def score(found: set[Any], wanted: set[Any]) -> dict[str, float]:
    hit = len(found & wanted)
    return {
        "planted": len(wanted),
        "found": len(found),
        "precision": round(hit / len(found), 3) if found else 1.0,
        "recall": round(hit / len(wanted), 3) if wanted else 1.0,
    }


async def run(
    entities: int, seed: int, families: str, embeddings: str, max_findings: int = 100_000, audit_runs: int = 1
) -> dict[str, Any]:
    files, truth = plant(entities, seed, families)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        async with started(root, embeddings={"provider": embeddings}, plane={"max_findings": max_findings}) as vg:
            await vg.indexed()
            truth["stale"] = await plant_stale(vg)
            vectors = time.perf_counter()
            await vg.ok("search_memory", query="warm up")  # reads the entity notes, starts their vectors
            assert vg.app.services.recall is not None
            await vg.app.services.recall.of(next(iter(vg.app.vaults.values()))).settled(within=1800)
            vectors = time.perf_counter() - vectors
            t0 = time.process_time()
            wall = time.perf_counter()
            out = await vg.ok("run_consolidation", wait=True)
            cpu, wall = time.process_time() - t0, time.perf_counter() - wall
            for _ in range(audit_runs - 1):  # the audit looks for up to 5000 titles a run, in turn
                await vg.ok("run_consolidation", jobs=["audit"], wait=True)
            items: list[dict[str, Any]] = []
            cursor = None
            while True:
                page = await vg.ok("list_findings", limit=500, **({"cursor": cursor} if cursor else {}))
                items += page["items"]
                cursor = page["next_cursor"]
                if not cursor:
                    break
    claims = [i for i in items if i["kind"] == "contradiction" and i["detail"]["entity"].startswith("Claim ")]
    histories = {
        (i["detail"]["entity"], i["detail"]["older"], i["detail"]["newer"])
        for i in items
        if i["kind"] == "contradiction" and i["detail"]["entity"].startswith("History ")
    }
    histories_merged = [
        i for i in items if i["kind"].endswith("duplicate") and i["detail"]["entity"].startswith("History ")
    ]
    claims_merged = [i for i in items if i["kind"].endswith("duplicate") and i["detail"]["entity"].startswith("Claim ")]
    swaps_merged = [i for i in items if i["kind"].endswith("duplicate") and i["detail"]["entity"].startswith("Swap ")]
    items = [i for i in items if not i["detail"].get("entity", "").startswith(("Claim ", "Swap ", "History "))]
    by = lambda kind: [i for i in items if i["kind"] == kind]  # noqa: E731
    claimed = {(i["detail"]["entity"], i["detail"]["older"], i["detail"]["newer"]) for i in claims}
    dups = {
        (i["detail"]["entity"], frozenset({i["detail"]["kept"], i["detail"]["duplicate"]}))
        for i in by("duplicate") + by("near_duplicate")
    }
    contradictions = {(i["detail"]["entity"], i["detail"]["older"], i["detail"]["newer"]) for i in by("contradiction")}
    merged_negatives = len(dups & truth["hard_negatives"])
    merged_entities = {frozenset({i["detail"]["keep"], i["detail"]["merge"]}) for i in by("duplicate_entity")}
    stale = {i["detail"].get("capture_id") or i["detail"].get("experience_id") for i in by("stale_capture")}
    stale |= {i["detail"]["experience_id"] for i in by("stale_experience")}
    return {
        "bench": "consolidation_planted",
        "families": families,
        "embeddings": embeddings,
        "vectors_s": round(vectors, 1),
        "entities": entities,
        "seed": seed,
        "run_wall_s": round(wall, 2),
        "run_cpu_s": round(cpu, 2),
        "audit_runs": audit_runs,
        "jobs": {j["job"]: j["status"] for j in out["jobs"]},
        "capped": [j["job"] for j in out["jobs"] if "max_findings" in (j["reason"] or "")],
        "duplicates": score(dups, truth["duplicates"]),
        "hard_negatives": {
            "planted": len(truth["hard_negatives"]),
            "merged": merged_negatives,
            "merged_share": round(merged_negatives / max(1, len(truth["hard_negatives"])), 4),
        },
        "contradictions": score(contradictions, truth["contradictions"]),
        "one_thing_swapped": {"planted": truth["swaps"], "merged_as_duplicates": len(swaps_merged)},
        "claims_in_other_words": {
            "contradictions": score(claimed, truth["claim_contradictions"]),
            "details_read_as_contradictions": len(claimed & truth["claim_details"]),
            "details_planted": len(truth["claim_details"]),
            "merged_as_duplicates": len(claims_merged),
            "detail_deleted": sum(1 for i in claims_merged if _detailed(i, truth)),
        },
        "past_tense_histories": {
            "contradictions": score(histories, truth["histories"]["present"]),
            "histories_read_as_contradictions": len(histories & truth["histories"]["history"]),
            "histories_planted": len(truth["histories"]["history"]),
            "changes_read_as_contradictions": len(histories & truth["histories"]["change"]),
            "changes_planted": len(truth["histories"]["change"]),
            "merged_as_duplicates": len(histories_merged),
        },
        "duplicate_entities": score(merged_entities, truth["same_entities"]),
        "look_alike_entities_merged": len(merged_entities & truth["look_alike"]),
        "stale_items": score(stale, truth["stale"]),
        "orphaned_observations": score({i["detail"]["entity"] for i in by("orphaned_observation")}, truth["orphaned"]),
        "unlinked_mentions": score(
            {(i["detail"]["path"], i["detail"]["target"]) for i in by("unlinked_mention")}, truth["mentions"]
        ),
        "broken_links": score({i["detail"]["target"] for i in by("broken_link")}, truth["broken"]),
        "orphans": score({i["detail"]["path"] for i in by("orphan")}, truth["orphans"]),
        "tag_variants": score(
            {frozenset(i["detail"]["variants"]) for i in by("tag_variant")}, set(truth["tag_variants"])
        ),
        "findings": len(items),
        "missed_duplicates": sorted(sorted(pair) for _, pair in truth["duplicates"] - dups),
        "merged_hard_negatives": sorted(sorted(pair) for _, pair in dups & truth["hard_negatives"]),
        "duplicates_not_planted": sorted(sorted(pair) for _, pair in dups - truth["duplicates"]),
        "contradictions_not_planted": sorted([old, new] for _, old, new in contradictions - truth["contradictions"]),
    }


def _detailed(finding: dict[str, Any], truth: dict[str, Any]) -> bool:
    """Whether a duplicate finding on a claim's entity deletes the claim that adds a detail."""
    entity, deleted = finding["detail"]["entity"], finding["detail"]["duplicate"]
    return any(e == entity and deleted == second for e, _, second in truth["claim_details"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entities", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--families", choices=("tune", "report", "all", "hard", "held"), default="report")
    parser.add_argument("--embeddings", choices=("none", "builtin"), default="builtin")
    parser.add_argument("--max-findings", type=int, default=100_000, help="[plane] max_findings (500 by default)")
    parser.add_argument(
        "--audit-runs", type=int, default=1, help="runs of the audit in all (unlinked mentions in turn)"
    )
    args = parser.parse_args()
    result = asyncio.run(
        run(args.entities, args.seed, args.families, args.embeddings, args.max_findings, args.audit_runs)
    )
    print(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
