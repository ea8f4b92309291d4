"""The text a note holds once a plan's earlier steps ran, as the check knows it without running
them: where it starts (`origin`: a file on disk, whose text the steps then change; None: a note
a step wrote whole) and the calls that changed it since, in order. A move's link rewrites over
the vault the plan leaves read a note the plan made or edited this way (`service.plans.planned_links`),
not as it is on disk: the run rewrites the links a new note holds (read-your-writes: the index
holds the plan's own writes when the move plans its rewrites).

Which calls change a text how is the tool layer's to say (`service.tools.sessions.plan_texts`
composes it with the tools' own edit functions); a call it has no rule for (a template, a memory
tool, a link rewrite), one whose edit fails there (a patch of a heading the note lacks) and an
`UNFORESEEN` one leave the text as before them, and the move reading it says its counts are an
estimate (`MovedFile.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

UNFORESEEN = ""  # a call that changes the text as only the run knows (its content waits for a step's result)
# where a call's recorded arguments hold the template file it renders from, as the check found it
# (apply_template, a periodic note made; absent or None: only the run finds it): no tool argument
TEMPLATE = "$template"
# where an applied rewrite_links' recorded arguments hold its targets as the check resolved them,
# [old path, new path] (absent: only the run resolves them): no tool argument
TARGETS = "$targets"
# where a create_relations' recorded arguments hold each target as written -> the link text the call
# writes, as the check found them (`memory_effects.relation_targets`; absent: only the run finds them)
LINKS = "$links"
# where a merge_observations' recorded arguments hold the merged entity's note as the check found it,
# (its path, its `PlannedText`) (absent or None: only the run finds it)
MERGED = "$merged"
# where a process_capture's recorded arguments hold the pending capture its id names, as the check found
# it (list_captures): {"text": its text, "inbox": the inbox note its item is in} (absent or None: only the
# run finds it: no such capture pending, its item not written in the inbox yet, a capture an earlier step makes)
CAPTURE = "$capture"
WHOLE = frozenset({"create_note", "bulk_create_notes"})  # a note's whole text; write_note too, but in append mode


@dataclass
class PlannedText:
    origin: str | None  # the file on disk its text starts from; None: a step wrote it whole
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (tool, resolved args), in order

    def then(self, tool: str, args: dict[str, Any]) -> PlannedText:
        """This text once `tool` wrote it with `args`."""
        if tool in WHOLE or tool == "write_note" and args.get("mode", "create") != "append":
            return PlannedText(None, [(tool, args)])
        return PlannedText(self.origin, [*self.calls, (tool, args)])
