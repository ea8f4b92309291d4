"""Job 2, contradictions and supersession: observations of one entity about the same attribute
that disagree — employer, city, role, status, or any `<attribute> is <number or date>`.

Each observation is read for the attribute it states (`attribute`: "works at Acme" → employer
acme, "moved to Berlin in 2021" → city berlin, "Budget is 5000" → budget 5000). Two observations
of one entity that give one attribute different values contradict each other; ordered by their
date (the `date` field, else `recorded`, else their order in the note), the newer supersedes the
older. The plan marks the older one valid until the newer one's date and superseded by it
(`supersede_observation`): nothing is deleted, the history stays in the note, and an observation
already marked is not reported again.
"""

from __future__ import annotations

import re
from typing import Any

from service.memory.model import Observation
from service.memory.recall import NoteEntry
from service.plane.findings import Finding
from service.plane.job import JobContext, Need

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
    r"(?P<v>[$€£]?\d[\d,.:/-]*(?: ?(?:%|k|m|usd|eur|euros?|dollars?|years?|km|kg))?)\b",
    re.I,
)
_TAIL = re.compile(
    r"\s+(?:in|since|from|on|at|as of|until)\s+(?:\d|january|february|march|april|may|june|july|"
    r"august|september|october|november|december).*$",
    re.I,
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)


def attribute(text: str) -> tuple[str, str] | None:
    """(attribute, value) an observation states, normalised; None when it states none we know."""
    for family, pattern in _FAMILIES:
        found = pattern.search(text)
        if found:
            value = _ARTICLE.sub("", _TAIL.sub("", found.group("v").strip()))
            words = value.lower().split()[:4]
            if words:
                return family, " ".join(words)
    found = _MEASURE.search(text.strip())
    if found:
        return " ".join(found.group("a").lower().split()), found.group("v").lower().replace(",", "")
    return None


def _when(obs: Observation) -> str:
    return obs.fields.get("date") or obs.fields.get("recorded") or ""


class Contradictions:
    name = "contradictions"
    needs: tuple[Need, ...] = ("memory",)

    async def run(self, ctx: JobContext) -> list[Finding]:
        out: list[Finding] = []
        for entry in sorted(ctx.recall.notes.values(), key=lambda e: e.rel):
            out += self.within(entry)
            if len(out) >= ctx.settings.max_findings:
                break
            await ctx.pause()
        return out[: ctx.settings.max_findings]

    def within(self, entry: NoteEntry) -> list[Finding]:
        stated: dict[str, list[tuple[str, int, Observation, str]]] = {}
        for position, obs in enumerate(entry.entity.observations):
            if "valid_until" in obs.fields or "superseded_by" in obs.fields:
                continue  # already superseded
            found = attribute(obs.text)
            if found is not None:
                stated.setdefault(found[0], []).append((_when(obs), position, obs, found[1]))
        out = []
        for attr, items in stated.items():
            items.sort(key=lambda item: (item[0], item[1]))
            for (_, _, old, old_value), (when, _, new, new_value) in zip(items, items[1:], strict=False):
                if old_value == new_value:
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
