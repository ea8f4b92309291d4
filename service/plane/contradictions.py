"""Job 2, contradictions and supersession: observations of one entity about the same attribute
that disagree — employer, city, role, status, age, how many of a thing it has ("Owns 2 cars" /
"Owns three cars"), or any `<attribute> is <number or date>`.

Each observation is read for the attribute it states (`attribute`: "works at Acme" → employer
acme, "moved to Berlin in 2021" → city berlin, "Budget is 5000" → budget 5000, "Has two cats at
home" → `has cat at home` 2; numbers in words are read as numbers). Two observations
of one entity that give one attribute different values contradict each other; ordered by their
date (the `date` field, else a date the text gives, "Moved to Oslo in March 2016", else
`recorded`, else their order in the note: `fact_date`), the newer supersedes the older. A fact
stated in the past ("Worked at Acme", "Lived in Paris", "Role was nurse") is history and
contradicts nothing: "Worked at Acme" / "Worked at Globex" are both true, and "Worked at Acme" /
"Works at Globex" is a change; a present perfect ("Has worked at Acme since 2015")
states the present. The plan marks the older one valid until the newer one's date and superseded by it
(`supersede_observation`): nothing is deleted, the history stays in the note, and an observation
already marked is not reported again.
"""

from __future__ import annotations

import re
from typing import Any

from service.memory.history import History
from service.memory.model import Observation
from service.memory.recall import NoteEntry
from service.plane.duplicates import PAST, PERFECT, facts
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.plane.numbers import as_digits
from service.plane.spelt import MONTH_NAMES as _MONTH_NAMES

_V = r"(?P<v>[^,.;!?]+)"
_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("employer", re.compile(rf"\b(?:works|worked|working|is employed|was employed) (?:at|for|by) {_V}", re.I)),
    ("city", re.compile(rf"\b(?:lives|lived|living|is based|was based|resides|settled) in {_V}", re.I)),
    ("city", re.compile(rf"\bmoved to {_V}", re.I)),
    ("role", re.compile(rf"\b(?:works|worked|working) as {_V}", re.I)),
    ("role", re.compile(rf"\b(?:role|title|job title|position) (?:is|was|:) {_V}", re.I)),
    ("status", re.compile(rf"\bstatus (?:is|was|:) {_V}", re.I)),
)
_MEASURE = re.compile(
    r"^(?:(?:the|her|his|their|my|our|its) )?(?P<a>[a-z][a-z ]{1,30}?) (?:is|was|are|were|=|:) (?:now )?"
    r"(?P<v>[$€£]?\d[\d,.:/-]*(?: ?(?:%|k|m|usd|eur|euros?|dollars?|years?|km|kg|hundred|thousand|[mb]illion))?)\b",
    re.I,
)
_TAIL = re.compile(
    r"\s+(?:in|since|from|on|at|as of|until)\s+(?:\d|january|february|march|april|may|june|july|"
    r"august|september|october|november|december).*$",
    re.I,
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)
# where a named value ends and a detail about it starts ("Acme as a nurse", "Paris with Ann", "a
# nurse at Acme since 2015"): prepositions and conjunctions, a closed class, not the planted phrasings
_DETAIL = frozenset(
    {
        *("as", "with", "without", "for", "at", "on", "in", "near", "since", "from", "by", "during", "until"),
        *("after", "before", "while", "where", "when", "because", "who", "which", "that", "and", "but"),
        *("via", "under", "through", "around", "outside", "inside", "alongside", "between", "among"),
    }
)
# how many of a thing an entity has: a verb of having, a count, the thing (and the days, months and
# names after it, which must agree too: "has 2 meetings on Monday" / "3 meetings on Tuesday")
_COUNT = re.compile(
    r"^(?:(?:she|he|they|it|we|i|now|still) )*(?P<verb>has|have|owns|own|keeps|keep|speaks|speak|manages|manage|"
    r"employs|employ|leads|lead|supervises|raises|raise|rents|rent)"
    r" (?:(?:about|around|exactly|only|just|now|some) )?(?P<v>\d+) (?P<rest>[^,.;!?]+)",
    re.I,
)
_AGE = re.compile(r"\b(?:is|turned|turns) (?P<v>\d+)(?: years old|-year-old\b| years of age)", re.I)
_PLURAL = {"children": "child", "people": "person", "men": "man", "women": "woman", "teeth": "tooth", "feet": "foot"}


def _count(text: str) -> tuple[str, str] | None:
    found = _COUNT.search(text.strip())
    if found is None:
        return None
    verb = found.group("verb").lower()
    verb = "has" if verb == "have" else verb if verb.endswith("s") else verb + "s"
    rest = _TAIL.sub("", found.group("rest"))
    thing = [w for w in re.findall(r"\w+", rest.lower()) if w not in {"a", "an", "the", "of"}][:1]
    if not thing:
        return None
    _, days, _, names = facts(text[: found.start("rest")] + rest)
    return " ".join([verb, _one(thing[0]), *sorted(days), *sorted(names)]), found.group("v")


def _one(noun: str) -> str:
    """A plural noun's singular, closely enough to compare two ("cars", "bikes", "boxes", "children")."""
    if noun in _PLURAL:
        return _PLURAL[noun]
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("ses", "xes", "zes", "ches", "shes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3 else noun


def attribute(text: str) -> tuple[str, str] | None:
    """(attribute, value) an observation states, normalised; None when it states none we know."""
    found = _stated(text)
    return found[:2] if found is not None else None


def _stated(text: str) -> tuple[str, str, bool] | None:
    """`attribute`'s (attribute, value) and whether the observation states it as history (`_past`)."""
    text = as_digits(text)
    for family, pattern in _FAMILIES:
        found = pattern.search(text)
        if found:
            value = _ARTICLE.sub("", _TAIL.sub("", found.group("v").strip()))
            words = value.lower().split()
            cut = next((n for n, w in enumerate(words) if n and w in _DETAIL), len(words))
            if words[:cut]:
                return family, " ".join(words[: min(cut, 4)]), _past(text, found.start(), found.start("v"))
    found = _MEASURE.search(text.strip())
    if found:
        measure = " ".join(found.group("a").lower().split()), found.group("v").lower().replace(",", "")
        return *measure, _past(text.strip(), found.end("a"), found.start("v"))
    age = _AGE.search(text)
    counted = ("age", age.group("v")) if age else _count(text)  # both in the present only
    return (*counted, False) if counted is not None else None


# a verb of the past stating the attribute: "Worked at Acme", "Lived in Paris", "Was based in
# Oslo", "Role was nurse". Such a fact is history, true beside a later one ("Worked at Globex",
# "Works at Globex"); a present perfect ("Has lived in Paris since 2010") still holds, and
# "moved to", "settled in" and "turned 40" say what holds now.
# (`PAST`, `PERFECT`: service/plane/duplicates.py, whose guard keeps such a fact beside the present)


def _past(text: str, start: int, end: int) -> bool:
    """Whether the verb in `text[start:end]` (the words before the value), or the word just before
    it ("Was working at Acme"), is in the past."""
    before = text.rfind(" ", 0, max(0, start - 1)) + 1 if start else 0  # the word before the match
    found = PAST.search(text, before, end)
    return found is not None and PERFECT.search(text[: found.start()]) is None


def same_value(a: str, b: str) -> bool:
    """Whether two values of one attribute say the same: equal, or one the other's first words
    ("New York" / "New York City", "Acme" / "Acme Labs"): a detail added, not another value."""
    short, long = sorted((a.split(), b.split()), key=len)
    return long[: len(short)] == short


_MONTH = {m: n for n, m in enumerate(_MONTH_NAMES, 1)}
_SAID_DATE = re.compile(
    r"\b(?P<iso>(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)\b"
    rf"|\b(?:(?P<day>[0-3]?\d) )?(?P<month>{'|'.join(_MONTH_NAMES)}) (?P<year>(?:19|20)\d\d)\b"
    r"|\b(?:in|since|from|during|around) (?P<bare>(?:19|20)\d\d)\b(?!-\d)",
    re.I,
)


def said_date(text: str) -> str:
    """The date an observation's text gives its fact ("Moved to Oslo in March 2016": '2016-03';
    "in 2019-03-05", "5 March 2019", "since 2015"), as its `date` field would be written; ''
    for none."""
    found = _SAID_DATE.search(text)
    if found is None:
        return ""
    if found["iso"] or found["bare"]:
        return str(found["iso"] or found["bare"])
    month = f"{found['year']}-{_MONTH[found['month'].lower()]:02d}"
    return f"{month}-{int(found['day']):02d}" if found["day"] and 0 < int(found["day"]) <= 31 else month


def fact_date(obs: Observation) -> str:
    """When an observation's fact held, to order two of them: its `date` field, else the date its
    text gives ("Moved to Oslo in March 2016" recorded in 2024 still moved in 2016), else when it
    was `recorded`; '' when none says (then its place in the note decides)."""
    return obs.fields.get("date") or said_date(obs.text) or obs.fields.get("recorded") or ""


class Contradictions:
    name = "contradictions"
    needs: tuple[Need, ...] = ("memory",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        out: list[Finding] = []
        for entry in sorted(ctx.recall.notes.values(), key=lambda e: e.rel):
            if entry.entity.fm_error is not None:
                continue  # its writes are refused: the duplicates job reports it (`invalid_frontmatter`)
            out += self.within(entry)
            if len(out) >= ctx.settings.max_findings:
                break
            await ctx.pause()
        return out[: ctx.settings.max_findings]

    def within(self, entry: NoteEntry) -> list[Finding]:
        stated: dict[str, list[tuple[str, int, Observation, str]]] = {}
        history = History(entry.entity.observations)
        for position, obs in enumerate(entry.entity.observations):
            if history.ended(obs):
                continue  # already superseded
            found = _stated(obs.text)
            if found is not None and not found[2]:  # history stays true beside any later fact
                stated.setdefault(found[0], []).append((fact_date(obs), position, obs, found[1]))
        out = []
        for attr, items in stated.items():
            items.sort(key=lambda item: (item[0], item[1]))
            for (_, _, old, old_value), (when, _, new, new_value) in zip(items, items[1:], strict=False):
                if same_value(old_value, new_value):
                    continue
                out.append(self._finding(entry, attr, old, old_value, new, new_value, when))
        return out

    def _finding(
        self, entry: NoteEntry, attr: str, old: Observation, old_value: str, new: Observation, new_value: str, when: str
    ) -> Finding:
        name = entry.entity.name
        plan: dict[str, Any] | None = None
        if old.block_id and new.block_id:
            args = {"entityName": name, "observation": f"^{old.block_id}", "superseded_by": f"^{new.block_id}"}
            if when:
                args["valid_until"] = when
            plan = {
                "goal": f"mark {name}'s older {attr} as superseded",
                "steps": [{"id": "supersede", "tool": "supersede_observation", "args": args}],
            }
        return Finding(
            job=self.name,
            kind="contradiction",
            key=f"contradiction:{entry.rel}:{old.block_id or old.text}:{new.block_id or new.text}",
            title=f"{name}: {attr} {old_value!r} then {new_value!r}",
            detail={
                "entity": name,
                "attribute": attr,
                "older": old.text,
                "older_block_id": old.block_id,
                "newer": new.text,
                "newer_block_id": new.block_id,
                "newer_date": when or None,
            },
            paths=[entry.rel],
            etags={entry.rel: entry.etag},
            plan=plan,
        )
