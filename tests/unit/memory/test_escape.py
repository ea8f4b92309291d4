"""An observation's text and field values survive the note: whatever colons, brackets and
backslashes they hold, `parse(render(...))` gives them back and no inline field is forged."""

from __future__ import annotations

import random

from service.memory.model import Entity, Observation, escape, parse, render, unescape


def test_any_mix_of_colons_brackets_and_backslashes_reads_back_as_given() -> None:
    rng = random.Random(37)
    for _ in range(2000):
        text = "".join(rng.choice("::[]()\\ ab^#") for _ in range(rng.randint(1, 14))).strip() or "a"
        value = "".join(rng.choice("::()\\ ab") for _ in range(rng.randint(1, 8))).strip() or "b"
        assert unescape(escape(text, first=True)) == text
        entity = Entity("E", "t", observations=[Observation(text, None, "", {"recorded": "2026-01-01", "date": value})])
        [obs] = parse(render(entity)).observations
        assert (obs.text, obs.category, obs.fields) == (text, None, {"recorded": "2026-01-01", "date": value})


def test_wikilinks_and_plain_text_are_written_as_they_are() -> None:
    for text in ("[[Bob]] met [[Ann|her]]", "C:\\path and a: b", "see (context) #tag"):
        assert escape(text, first=True) == text
