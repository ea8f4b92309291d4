# ruff: noqa: E501  (the queries stay as the documentation writes them)
"""The query examples of Dataview's documentation (query types, data commands, structure,
sources, expressions, task metadata, examples): every one parses, and every one runs on the
purpose-built vault through the dispatch chain without an error."""

from __future__ import annotations

import pytest

from service.dataview.query import parse_query

DOCUMENTED_QUERIES: list[str] = [
    'CALENDAR due\nWHERE typeof(due) = "date"',
    "CALENDAR file.cday",
    "CALENDAR file.ctime",
    'CALENDAR file.day\nFLATTEN all(map(file.tasks, (x) => x.completed)) AS "allCompleted"\nWHERE !allCompleted',
    "LIST",
    'LIST\nFROM "Books"',
    'LIST\nFROM "Games"\nWHERE price > 10',
    'LIST\nFROM #assignments\nWHERE status = "open"',
    "LIST\nFROM #games/mobas OR #games/crpg",
    "LIST\nFROM #homework",
    'LIST\nFROM #homework\nWHERE status != "done"',
    "LIST\nFROM #status/open\nSORT file.ctime DESC\nLIMIT 10",
    "LIST\nFROM #status/open OR #status/wip",
    'LIST\nFROM (#assignment AND "30 School") OR ("30 School/32 Homeworks" AND outgoing([[School Dashboard Current To Dos]]))',
    "LIST\nFROM [[]]",
    "LIST\nFROM outgoing([[Dashboard]])",
    "LIST\nGROUP BY type",
    "LIST\nWHERE any(file.tasks, (t) => !t.fullyCompleted)",
    'LIST\nWHERE contains(file.name, "WIP")',
    "LIST\nWHERE due AND due < date(today)",
    'LIST\nWHERE file.name = "Scribble"',
    'LIST\nWHERE string(file.day.year) = split(this.file.name, "-W")[0]',
    'LIST "File Path: " + file.folder + " _(created: " + file.cday + ")_"\nFROM "Games"',
    "LIST WITHOUT ID",
    'LIST WITHOUT ID length(rows) + " pages of type " + key\nGROUP BY type',
    'LIST WITHOUT ID next-in-line\nFROM "30 Hobbies/Games/Dashboard"',
    "LIST WITHOUT ID type",
    "LIST file.folder",
    'LIST rows.c\nWHERE typeof(contacts) = "array" AND contains(contacts, [[Mr. L]])\nSORT length(contacts)\nFLATTEN contacts as c\nSORT link(c).age ASC',
    "LIST rows.file.link\nGROUP BY type",
    "TABLE",
    'TABLE\ndefault(finished, date(today)) - started AS "Played for",\nfile.folder AS Path,\nfile.etags AS "File Tags"\nFROM #games',
    'TABLE L.text AS "My lists"\nFROM "dailys"\nFLATTEN file.lists AS L\nWHERE contains(L.author, "Surname")',
    'TABLE WITHOUT ID\nfile.link AS "Game",\nfile.etags AS "File Tags"\nFROM #games',
    'TABLE WITHOUT ID\nsteamid,\nfile.etags AS "File Tags"\nFROM #games',
    'TABLE due, file.tags AS "tags", average(working-hours)',
    "TABLE duedate, class, field-with-space",
    'TABLE file.ctime, appointment.type, appointment.time, follow-ups\nFROM "30 Protocols/32 Management"\nWHERE follow-ups\nSORT appointment.time',
    'TABLE file.ctime, status\nFROM "projects/brainstorming"',
    'TABLE hrs / 24 AS "days"\nFROM "30 Projects"',
    "TABLE id, episode_metadata.next, aliases[0]",
    'TABLE recipe-type AS "type", portions, length\nFROM #recipes',
    'TABLE start, end, (end - start) - dur(8 h) AS "Overtime" \nFROM #work',
    'TABLE started, file.folder AS Path, file.etags AS "File Tags"\nFROM #games',
    "TABLE started, file.folder, file.etags\nFROM #games",
    "TASK",
    "TASK\nWHERE !completed",
    "TASK\nWHERE !completed\nGROUP BY file.link",
    "TASK\nWHERE !completed\nSORT created ASC\nLIMIT 10\nGROUP BY file.link\nSORT rows.file.ctime ASC",
    'TASK\nWHERE !completed AND contains(tags, "#shopping")',
    "TASK\nWHERE !fullyCompleted",
    'TASK\nWHERE completion = date("2021-08-22")',
    "TASK\nWHERE due <= date(today)",
    'TASK\nWHERE typeof(due) = "date" AND due <= date(today)',
    "TASK\nWHERE urgent",
]


@pytest.mark.parametrize("query", DOCUMENTED_QUERIES)
def test_documented_query_parses(query: str) -> None:
    parse_query(query)
