"""The `[limits]` section: the budgets every evaluator, decoder and expander draws from.

One place for how much a single request may make the server compute or hold: the size of a
value an expression builds, how deep a rule or expression may nest, how many values a note's
YAML may expand to, how many pixels an image may decode to, and the wall-clock time of an
evaluation that has no budget of its own. `service.budget` turns this section into the
runtime object (`Budget`) that the Dataview, Bases and JSONLogic evaluators, the frontmatter
reader and the image decoder consult. Per-tool step and time ceilings that predate it stay in
`[search]` (`regex_budget_ms`, `jsonlogic_max_ops`, `bases_max_steps`, `bases_max_seconds`).
"""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class LimitsSettings(Section):
    max_value_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        description="Largest string (characters) one evaluator function or operator may build (padleft, repeat, "
        "join, replace, +); checked before it is built. Past it: compute_budget_exceeded.",
    )
    max_eval_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=1024,
        description="Characters and list items one evaluation's values may hold together (a tasks_filter "
        "expression: every name's text, every list it builds, and the sort keys and group names it keeps across "
        "tasks; a Dataview row's values with the SORT / GROUP BY keys and FLATTEN lists kept across rows; a "
        "JSONLogic note's; a Bases query's formula values and cells); each value is also bounded by "
        "max_value_bytes alone. Past it: compute_budget_exceeded (limit held).",
    )
    max_list_items: int = Field(
        default=1_000_000,
        ge=100,
        description="Longest list one evaluator function or operator may build (flat, +, map over a list).",
    )
    max_depth: int = Field(
        default=64,
        ge=8,
        le=200,
        description="Deepest nesting of brackets, calls and unary operators in an expression, of filters and "
        "YAML in a .base file, of a JSONLogic rule and of a note's frontmatter; an expression's tree (operator "
        "chains) and a chain of formulas reading formulas may go 4x as deep. Deeper is a syntax error "
        "(bases_syntax_error, query_syntax_error), a frontmatter_error, never a crash.",
    )
    max_frontmatter_values: int = Field(
        default=100_000,
        ge=1000,
        description="Values one note's YAML frontmatter may expand to, each use of an alias counted again "
        "(an alias bomb stops here: the note is indexed without properties and a write is refused).",
    )
    max_image_pixels: int = Field(
        default=40_000_000,
        ge=1_000_000,
        description="Largest image (width x height) read_attachment decodes (40 MP: ~160 MB as RGBA); read from "
        "the header before any decoding. A larger JPEG is decoded at a reduced scale when that brings it under; "
        "anything else larger is compute_budget_exceeded.",
    )
    max_indexed_note_chars: int = Field(
        default=1024 * 1024,
        ge=1024,
        description="Longest part of one note the index reads (characters, cut at the last line break within "
        "them; 1 Mi characters of dense tasks took 0.75 s to prepare at load ~7 on 2 cores, 4 Mi 7.3 s). The rest "
        "is not indexed: not found by search, its tags, links, tasks and fields not listed; the note is reported "
        "as a `capped` file warning in index_status, and stays readable and writable whole.",
    )
    max_note_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=1024,
        description="Largest note (bytes on disk) a tool reads, returns or edits whole (read_note, read_notes, "
        "note_info, get_outline, the edit tools, properties, a move's or rename's link rewrite in it); measured on "
        "the opened file before anything is read. A larger note is refused with compute_budget_exceeded (limit "
        "note_bytes): a whole read holds 2-4x its size in memory (a 600 MB note: 2.5 GB, 35 s for one "
        "append_note). Deleting, moving or renaming it still works, and the index reads its first "
        "max_indexed_note_chars as for any long note. 64 MiB is far past what Obsidian itself edits comfortably.",
    )
    max_eval_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Wall-clock budget of an evaluation without its own setting (a JSONLogic query, a "
        "regular expression outside a query).",
    )
    max_rewrite_seconds: float = Field(
        default=60.0,
        gt=0,
        description="Wall-clock budget of one call's multi-note plan (move_note, rename_note, rewrite_links, "
        "rename_tag, replace_text, their dry runs and confirmation previews): reading and rewriting every note that "
        "may link to the changed files, holds the tag or has a match. Past it: compute_budget_exceeded (limit "
        "seconds, with the notes examined and their total) before anything is written. Each note's own link "
        "rewrite is bounded by max_eval_seconds.",
    )
    max_rewrite_notes: int = Field(
        default=20_000,
        ge=1,
        description="Most notes one move_note, rename_note, rewrite_links or rename_tag may rewrite (replace_text "
        "has its own, lower bound). The plan is refused with compute_budget_exceeded (limit notes) as soon as it "
        "finds one more, before anything is written; its dry run and confirmation preview alike. Each rewrite is "
        "an atomic, fsynced, journaled write of one note (~4 ms on a lightly loaded disk, ~12 ms on a busy one), "
        "all or nothing: 20,000 are minutes of writing, and a hub note linked from 100,000 notes would hold the "
        "vault's move lock for up to 20 minutes.",
    )
