"""Round-trip frontmatter edits: an ISO date written by a caller stays a YAML date."""

from __future__ import annotations

import datetime as dt
from typing import Any

import yaml

from service.markdown import frontmatter as fm
from service.markdown import yaml_edit


def _set(note: str, **values: object) -> str:
    def change(data: yaml_edit.CommentedMap) -> None:
        for key, value in values.items():
            data[key] = yaml_edit.to_yaml_value(value)

    return yaml_edit.edit_frontmatter(note, "x.md", change)


def _typed(note: str) -> dict[str, Any]:
    raw = fm.split(note).raw
    assert raw is not None
    data = yaml.safe_load(raw)
    assert isinstance(data, dict)
    return data


def test_an_iso_date_string_is_written_unquoted_and_reads_back_as_a_date() -> None:
    note = "---\ndue: 2024-01-01 # keep me\ntitle: '2024-03-03'\n---\nbody\n"
    out = _set(note, due="2024-02-01", start="2025-12-31", days=["2024-05-06", "soon"])
    assert "due: 2024-02-01 # keep me\n" in out
    assert "start: 2025-12-31\n" in out and "- 2024-05-06\n" in out
    assert "title: '2024-03-03'\n" in out  # untouched keys keep their quoting
    typed = _typed(out)
    assert typed["due"] == dt.date(2024, 2, 1) and typed["start"] == dt.date(2025, 12, 31)
    assert typed["days"] == [dt.date(2024, 5, 6), "soon"] and typed["title"] == "2024-03-03"
    assert out.endswith("---\nbody\n")


def test_date_like_strings_that_are_not_dates_stay_strings() -> None:
    out = _set("---\na: 1\n---\n", code="2024-13-45", words="2024-02-01 and more")
    typed = _typed(out)
    assert typed["code"] == "2024-13-45" and typed["words"] == "2024-02-01 and more"
