"""`python -m tests.reliability.writes_killed VAULT SCENARIO REL [FINDING | CALL]`: a server process that
kills itself (SIGKILL) in the write of REL by one of the newest writers, once the journal (when the
write has one) recorded REL's prior bytes and before REL changes (`tests.plan_killed.kill_when_writing`):

- `memory-plan`: `execute_plan` of `MEMORY_PLAN` (an append, a multi-entity add_observations, a
  create_relations, an append);
- `apply`: `apply_finding` of FINDING (a duplicate_entity merge: merge_observations, rewrite_links,
  delete_entities);
- `block-plan`: `execute_plan` of `BLOCK_PLAN` (set_properties over a literal block, an append);
- `block`: one `set_properties` over a literal block;
- `canvas`: one `write_canvas` overwrite;
- `canvas-rename`: one `rename_note` of a note a canvas links to (the canvas rewritten with it);
- `auto-apply`: `run_consolidation` of the duplicates job with `[plane] auto_apply = ["duplicate"]`
  (`AUTO_VAULT`: the run applies the finding itself, as `vaultgate-plane`);
- `undo`: `undo_last_plan` (the caller's newest run; the restores are killed as the writes are);
- `call`: the call FINDING names, as JSON `{"tool": ..., "args": {...}}` (any other writer).

With REL given as `after:REL`, the process kills itself right after REL's write instead (the
file renamed into place, the call not yet answered, its step not yet recorded as done). With
`gone:REL` it kills itself as REL is deleted or moved away (`dirfd.unlink` / `dirfd.rename` of
REL), the journal's record made and REL still in place; `gone-after:REL`, right after it went.
Calls that ask a human are confirmed as the tests confirm them. Plans run one call at a time, so no
other write is caught halfway. If no write of REL comes, the process ends by itself (code 0).
Used by tests/reliability/test_newest_writers_killed.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault import dirfd, files, reread, restore
from tests.plan_killed import kill_when_writing

PERSON = "---\nname: {0}\nentityType: person\n---\n# {0}\n\n## Observations\n- met at the {0} fair ^{1}\n"
MEMORY_VAULT: dict[str, str] = {
    "Home.md": "# Home\n",
    "Notes/log.md": "# Log\n",
    "Memory/Ann.md": PERSON.format("Ann", "a1"),
    "Memory/Bob.md": PERSON.format("Bob", "b1"),
}
MEMORY_PLAN: dict[str, Any] = {
    "goal": "remember the meeting",
    "steps": [
        {"id": "log", "tool": "append_note", "args": {"path": "Notes/log", "content": "- met Ann and Bob\n"}},
        {
            "id": "facts",
            "tool": "add_observations",
            "args": {
                "observations": [
                    {"entityName": "Ann", "contents": ["plays the cello"]},
                    {"entityName": "Bob", "contents": ["builds boats"]},
                ]
            },
        },
        {
            "id": "link",
            "tool": "create_relations",
            "args": {"relations": [{"from": "Ann", "to": "Bob", "relationType": "knows"}]},
        },
        {"id": "done", "tool": "append_note", "args": {"path": "Home", "content": "- remembered\n"}},
    ],
}

ZED = (
    '---\nname: Zed\nentityType: person\naliases: ["Zoé"]\ncreated: "2026-01-01T00:00:00Z"\n---\n'
    "## Observations\n- plays chess ^z1\n"
)
MERGE_VAULT: dict[str, str] = {
    "Home.md": "# Home\n\nSee [[Memory/Zoe|her]].\n",
    "Memory/Zed.md": ZED,
    "Memory/Zoe.md": "# Zoé\n\n## Observations\n- aime le café\n",
}

AUTO_VAULT: dict[str, str] = {
    "Home.md": "# Home\n",
    "Memory/Ann.md": (
        "---\nname: Ann\nentityType: person\naliases: []\n---\n# Ann\n\n## Observations\n"
        "- Likes green tea in the morning ^m-00000001\n- likes green tea in the morning. ^m-00000002\n"
    ),
}
AUTO_APPLY: dict[str, Any] = {"auto_apply": ["duplicate"]}

BLOCK = "---\ntitle: t\np: |-\n  x\n  y\nq: |\n  keep\n  this\n---\n# N\n\nbody\n"  # as Obsidian writes them
BLOCK_VAULT: dict[str, str] = {"N.md": BLOCK, "Other.md": "# Other\n"}
BLOCK_VALUE = "first line\nsecond line\n  indented third"
BLOCK_PLAN: dict[str, Any] = {
    "goal": "rewrite a block",
    "steps": [
        {"id": "set", "tool": "set_properties", "args": {"path": "N", "properties": {"p": BLOCK_VALUE}}},
        {"id": "note", "tool": "append_note", "args": {"path": "Other", "content": "- p rewritten\n"}},
    ],
}


def canvas_text(file: str) -> str:
    nodes = [
        {"id": "n1", "type": "file", "file": file, "x": 0, "y": 0, "width": 400, "height": 300},
        {"id": "n2", "type": "text", "text": "# Plan\nsee [[Idea]]", "x": 500, "y": 0, "width": 300, "height": 200},
    ]
    edges = [{"id": "e1", "fromNode": "n1", "toNode": "n2"}]
    return json.dumps({"nodes": nodes, "edges": edges}, indent="\t") + "\n"


CANVAS_VAULT: dict[str, str] = {
    "Home.md": "# Home\n\n[[Idea]]\n",
    "Ideas/Idea.md": "# Idea\n",
    "Board.canvas": canvas_text("Ideas/Idea.md"),
}
CANVAS_NODES: list[dict[str, Any]] = [
    {"id": "n1", "type": "file", "file": "Ideas/Idea.md", "x": 0, "y": 0, "width": 400, "height": 300},
    {"id": "n3", "type": "text", "text": "replaced", "x": 0, "y": 400, "width": 300, "height": 200},
]


def kill_after_writing(rel: str) -> None:
    """Make the process die (SIGKILL) right after the atomic write of `rel` (both writers, as
    `kill_when_writing` wraps them) has put the new bytes in place."""
    write = files.write_in

    def write_then_die(folder_fd: int, name: str, data: bytes, *, rel: str, **more: Any) -> os.stat_result:
        done = write(folder_fd, name, data, rel=rel, **more)
        if rel == target:
            os.kill(os.getpid(), signal.SIGKILL)
        return done

    target = rel
    files.write_in = write_then_die  # type: ignore[assignment]
    reread.write_in = write_then_die  # type: ignore[assignment]


def kill_when_going(rel: str, after: bool) -> None:
    """Make the process die (SIGKILL) as `rel` is unlinked or renamed away (a delete, a move to the
    trash, a move): before that (the journal's record written), or with `after`, right after it."""
    unlink, rename = dirfd.unlink, dirfd.rename

    def die_if(going: str) -> None:
        if going == rel:
            os.kill(os.getpid(), signal.SIGKILL)

    def unlink_or_die(root: Path, src: str, **more: Any) -> None:
        die_if("" if after else src)
        unlink(root, src, **more)
        die_if(src if after else "")

    def rename_or_die(root: Path, src: str, dst: str, **more: Any) -> list[str]:
        die_if("" if after else src)
        made = rename(root, src, dst, **more)
        die_if(src if after else "")
        return made

    dirfd.unlink = unlink_or_die  # type: ignore[assignment]
    dirfd.rename = rename_or_die  # type: ignore[assignment]


async def confirmed(app: VaultgateApp, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    who = Principal.local("test")
    first = await app.dispatcher.call(tool, args, principal=who)
    error = (first.structured or {}).get("error") or {}
    if error.get("code") != "elicit_required":
        return first.structured or {}
    store = app.services.confirmations
    [request] = await store.pending(error["details"]["args_hash"], error["details"]["vault"])
    token, _ = await store.mint(request, minted_by="test")
    again = await app.dispatcher.call(tool, {**args, "elicit_token": str(token)}, principal=who)
    return again.structured or {}


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "memory-plan": ("execute_plan", {"plan": MEMORY_PLAN}),
    "block-plan": ("execute_plan", {"plan": BLOCK_PLAN}),
    "block": ("set_properties", {"path": "N", "properties": {"p": BLOCK_VALUE}}),
    "canvas": ("write_canvas", {"path": "Board", "nodes": CANVAS_NODES, "edges": []}),
    "canvas-rename": ("rename_note", {"path": "Ideas/Idea.md", "new_path": "Big Idea"}),
    "auto-apply": ("run_consolidation", {"wait": True, "jobs": ["duplicates"]}),
    "undo": ("undo_last_plan", {}),
}


async def main(root: Path, scenario: str, finding: str | None) -> None:
    settings = load_settings(
        root,
        embeddings={"provider": "none"},
        index={"watch": False},
        plane={"enabled": False, **(AUTO_APPLY if scenario == "auto-apply" else {})},
        plans={"max_concurrency": 1},
    )
    app = VaultgateApp(settings)
    async with app.running():
        if scenario == "call":
            named = json.loads(finding or "{}")
            tool, args = named["tool"], named["args"]
        else:
            tool, args = ("apply_finding", {"finding_id": finding}) if scenario == "apply" else CALLS[scenario]
        answer = await confirmed(app, tool, args)
        print(f"not killed: {tool} answered {answer}", file=sys.stderr)


if __name__ == "__main__":
    where, _, rel = sys.argv[3].rpartition(":")
    if where.startswith("gone"):
        kill_when_going(rel, after=where == "gone-after")
    else:
        (kill_after_writing if where == "after" else kill_when_writing)(rel)
    restore.write_in = files.write_in  # an undo's restores die as the writes do
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2], sys.argv[4] if len(sys.argv) > 4 else None))
