"""`refs.known_parts`: what of an argument waiting for a step's result is known now (the items
and fields that resolve), so a plan's check lists the notes those change."""

from __future__ import annotations

from service.plans.refs import Scope, known_parts


def test_the_items_and_fields_that_resolve_are_kept() -> None:
    scope = Scope(params={"who": "Ann"}, known={"mk": {"path": "Inbox/A.md"}})
    args = {
        "relations": [
            {"from": "Steph Ango", "to": "$steps.e.created[0].name", "relationType": "made"},
            {"from": "$steps.e.created[0].name", "to": "${who}", "relationType": "knows"},
        ],
        "entityNames": ["Kepano", "$steps.e.created[0].name", "$steps.mk.path"],
        "content": "see ${steps.e.name}",  # a text still waiting: left out
        "whole": "$steps.e.created",  # a whole reference still waiting: left out
        "bad": ["$steps.mk.path.x"],  # a field of a text: the bad_reference the check reports, left out
    }
    assert known_parts(args, set(args), scope) == {
        "relations": [
            {"from": "Steph Ango", "relationType": "made"},
            {"to": "Ann", "relationType": "knows"},
        ],
        "entityNames": ["Kepano", "Inbox/A.md"],
        "bad": [],
    }
    assert known_parts(args, {"relations"}, scope).keys() == {"relations"}  # only the late ones
