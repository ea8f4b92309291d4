"""The consolidation jobs, in the order a run takes them (one tuple, as the dispatch layers are)."""

from __future__ import annotations

from service.plane.audit import Audit
from service.plane.contradictions import Contradictions
from service.plane.digest import Digest
from service.plane.duplicates import Duplicates
from service.plane.job import Job
from service.plane.stale import Stale
from service.plane.summaries import Summaries
from service.plane.topics import TopicMaps

JOBS: tuple[Job, ...] = (Duplicates(), Contradictions(), Stale(), Audit(), TopicMaps(), Digest(), Summaries())
