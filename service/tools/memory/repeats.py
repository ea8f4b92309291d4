"""memory domain, repeats: whether a text an entity already states, added again on a later day, is
a fact that holds again ("Works at Acme" 2020, "Works at Globex" 2023, "Works at Acme" 2024) rather
than a repeat (`add_to` records the first, skips the second)."""

from __future__ import annotations

from service.memory.history import History
from service.memory.model import Entity, Observation
from service.plane.contradictions import attribute, same_value

Stated = list[tuple[str, tuple[str, str] | None]]  # each observation's (date, attribute)


def holds_again(history: History, same: Observation, day: str, stated: Stated) -> bool:
    """Whether a text `same` already states, dated `day`, is a fact that holds again rather than a
    repeat: `same` is superseded, or dated before `day` while another observation dated between
    them gives the same attribute another value ("Works at Acme" 2020, "Works at Globex" 2023: "Works
    at Acme" dated 2024 is recorded; `service.plane.contradictions.attribute`). `stated`: each
    observation's (date, attribute), read once for the calls of one add (`dated_attributes`);
    `history`: the entity's supersessions (`service.memory.history`)."""
    if history.ended(same):
        return True
    since = (same.fields.get("date") or "").strip()
    own = attribute(same.text) if day and since and since < day else None
    if own is None:
        return False
    return any(
        since <= date <= day and found is not None and found[0] == own[0] and not same_value(found[1], own[1])
        for date, found in stated
    )


def dated_attributes(entity: Entity) -> Stated:
    """Each observation's date and attribute (`holds_again`)."""
    return [((o.fields.get("date") or "").strip(), attribute(o.text)) for o in entity.observations]
