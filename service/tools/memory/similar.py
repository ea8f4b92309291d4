"""memory domain: which observation an added one says nearly the same as (add_observations'
`similar_existing`): 60 % or more of their folded words in common (`service.memory.words`; of
all the words of both), among the observations the entity had and those the call added before
it; of several, the one with most in common, the later one on a tie.

Every pair was compared before (two set operations each): 1,000 observations of ~3,500
characters (500 words from 3,000) took 48 s into an empty entity and 115 s into one holding
1,000 such, on the event loop, the entity's lock held. Now the words in common come from an
inverted index of the note's and the call's observations, built once per call: only the words
two of them share are indexed (a word of one observation only cannot be in common), and an
added observation's overlaps with all the others are one count of the postings of its words
(numpy), then the same share, compared as before (`overlap / union >= SIMILAR` in floats).
The postings walked are a compute budget (`MAX_POSTINGS`, and `[limits] max_eval_seconds`):
past it the call is `compute_budget_exceeded` and nothing is written.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from service.budget import Budget, configured
from service.memory.model import Observation
from service.memory.words import word_set

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

SIMILAR = 0.6  # share of words in common (of all the words of both) that makes two observations similar
MAX_POSTINGS = 200_000_000  # index entries one call may walk (words indexed + postings counted)


class Similar:
    """The observations of one entity (`observations`, the list `add_to` appends to) and the texts
    a call adds to it, indexed by their shared words."""

    def __init__(self, observations: list[Observation], texts: list[str], budget: Budget | None = None) -> None:
        self.budget = budget or Budget(
            configured(),
            max_steps=MAX_POSTINGS,
            max_seconds=configured().max_eval_seconds,
            what="the near-duplicate check of add_observations",
            hint="Add fewer or shorter observations in one call.",
        )
        self.base = len(observations)
        sets = [word_set(o.text) for o in observations] + [word_set(t) for t in texts]
        self.budget.spend(sum(map(len, sets)) + 1)
        df = Counter(w for s in sets for w in s)
        self.ids = {w: i for i, w in enumerate(w for w, n in df.items() if n > 1)}
        post: list[list[int]] = [[] for _ in self.ids]
        for j, s in enumerate(sets):
            for w in s:
                i = self.ids.get(w)
                if i is not None:
                    post[i].append(j)
        self.post = [np.array(p, dtype=np.int64) for p in post]
        self.sets = sets
        self.sizes = np.array([len(s) for s in sets], dtype=np.float64)
        self.present = np.zeros(len(sets), dtype=bool)  # in the note now (a skipped text never is)
        self.present[: self.base] = True
        self.obs: list[Observation | None] = [*observations, *([None] * len(texts))]

    def best(self, n: int) -> Observation | None:
        """The observation the call's `n`-th text says most nearly the same as, if any."""
        at = self.base + n
        mine = self.sets[at]
        if not mine or not at:
            return None
        lists = [self.post[i] for i in (self.ids.get(w) for w in mine) if i is not None]
        if not lists:
            return None
        self.budget.spend(sum(len(p) for p in lists) + len(mine))
        counts = np.bincount(np.concatenate(lists), minlength=at)[:at].astype(np.float64)
        keep = self.present[:at] & (counts > 0) & (self.sizes[:at] > 0)
        share = np.zeros(at, dtype=np.float64)
        share[keep] = counts[keep] / (len(mine) + self.sizes[:at][keep] - counts[keep])
        hits = np.flatnonzero(keep & (share >= SIMILAR))
        if not len(hits):
            return None
        top = share[hits].max()
        return self.obs[int(hits[share[hits] == top][-1])]

    def added(self, n: int, obs: Observation) -> None:
        self.present[self.base + n] = True
        self.obs[self.base + n] = obs
