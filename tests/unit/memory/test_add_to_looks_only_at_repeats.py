"""add_to looks again only at the observations a new text repeats: whether a repeated fact holds
again (H4-found #13) reads the attributes of the entity's dated observations, and doing that for
every observation on every add made one add to an entity of 2,000 dated 'Works at Acme'
observations take ~17 s of CPU (every observation against every other)."""

from __future__ import annotations

import pytest

from service.memory.model import Entity, Observation
from service.tools.memory import adding, repeats


def test_an_unrelated_text_reads_no_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = repeats.attribute

    def counted(text: str) -> tuple[str, str] | None:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(repeats, "attribute", counted)
    dated = [Observation("Works at Acme", f"m-{i:012d}", "", {"date": f"2023-01-{i % 28 + 1:02d}"}) for i in range(500)]
    entity = Entity("Ann", "person", observations=dated)
    added, skipped, _ = adding.add_to(entity, ["Went to the gym"], None, {"date": "2024-01-05"})
    assert [o.text for o in added] == ["Went to the gym"] and skipped == []
    assert calls == []
    added, skipped, _ = adding.add_to(entity, ["Works at Acme"], None, {"date": "2024-01-05"})
    assert added == [] and skipped == ["Works at Acme"]  # a repeat, not a fact that holds again
    assert len(calls) <= 2 * len(dated) + 2  # each read once for the add, not each against all
