"""memory domain, history: which observations of an entity are superseded, as every reader reads it.

An observation is superseded when its `superseded_by` names another observation of the same entity
(by block id, any letter case: `supersede_observation` writes it, with the `valid_until` the caller
gave), or when it has a `valid_until` and no `superseded_by` (a fact written with its end). A
`superseded_by` that names no observation there — the newer fact's line deleted by hand, or a pointer
a person typed — is dangling: the observation is current, and neither its pointer nor the
`valid_until` written with it is answered. That is what `delete_observations` makes of the same
deletion (`service.tools.memory.pruning.mend_history`), here without rewriting the person's note:
the newer fact was retracted, so the older one is what the entity holds.

Readers: `open_nodes` and `read_memory_graph` (`entity_out`), `search_memory` (current facts first),
the consolidation plane's duplicates, contradictions and `still_holds`, and `add_observations`' repeat
check (`repeats.holds_again`).
"""

from __future__ import annotations

from collections.abc import Iterable

from service.memory.model import Observation


def pointer(obs: Observation) -> str:
    """The block id `obs`'s `superseded_by` names, as written ('' for none)."""
    return obs.fields.get("superseded_by", "").strip().lstrip("^")


class History:
    """The supersessions of one entity's observations (`observations`: all of them, as its note holds them)."""

    __slots__ = ("_ids",)

    def __init__(self, observations: Iterable[Observation]) -> None:
        self._ids = {o.block_id.casefold(): o.block_id for o in observations if o.block_id}

    def by(self, obs: Observation) -> str | None:
        """The block id of the observation that supersedes `obs`, as that one is written (None: none there)."""
        ref = pointer(obs)
        return self._ids.get(ref.casefold()) if ref else None

    def until(self, obs: Observation) -> str | None:
        """Until when `obs` held, if given: none for a dangling `superseded_by` (written with it)."""
        if pointer(obs) and self.by(obs) is None:
            return None
        return obs.fields.get("valid_until", "").strip() or None

    def ended(self, obs: Observation) -> bool:
        """Whether `obs` is history rather than what the entity holds now."""
        return self.by(obs) is not None or (not pointer(obs) and self.until(obs) is not None)

    def cited(self, observations: Iterable[Observation]) -> set[str]:
        """The block ids (as written) that some observation of `observations` is superseded by."""
        return {ref for o in observations if (ref := self.by(o)) is not None}
