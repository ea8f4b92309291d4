"""docs/tools.md, generated from the tool registry: `vaultgate docs tools > docs/tools.md`.

One table per domain (in registry order, grouped by each spec's `domain`) with every tool's name,
class, title and the first sentence of its description, then the facade modes. The class is
derived from the spec, never written by hand, so the page cannot drift from what the dispatch
pipeline enforces; `tests/contract/test_tools_doc.py` fails when the committed page is stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, get_args

from service.policy.visibility import LEAN

if TYPE_CHECKING:
    from service.tools.spec import ToolSpec

COMMAND = "vaultgate docs tools > docs/tools.md"

CLASSES = (
    ("R", "read: changes nothing"),
    ("W", "write"),
    ("D", "delete or destructive: every call waits for a human's confirmation"),
    ("X", "execute: a confirmation floor no configuration removes"),
    ("A", "admin: needs the `admin` scope"),
    ("C", "conditional confirmation (with W: `W,C`): the calls that replace or delete existing content ask a human"),
    ("per tool", "runs another tool by name, whose own class applies"),
)

# What each `tool_facade.mode` advertises; `render` checks the keys against the settings' choices.
FACADE_MODES = {
    "lean": "the everyday tools (`LEAN` in `service/policy/visibility.py`), each with its own schema and "
    "annotations, plus `find_capability`, `describe_capability` and `call_capability`, which find, describe "
    "and call every other tool (the default)",
    "flat": "every tool, each with its own schema and annotations",
    "domain": "one meta-tool per domain, named after it, taking `{operation, arguments}`",
    "triad": "`find_capability`, `describe_capability` and `call_capability`",
}


def tool_class(spec: ToolSpec) -> str:
    """The catalog's class letters for one spec."""
    if spec.destructive or spec.confirm == "always":
        return "D"
    if spec.scope_class == "execute":
        return "X"
    if spec.scope_class == "admin":
        return "A"
    if not spec.mutating:
        return "R"
    if not spec.scopes:  # a facade tool holding no scope of its own: the named tool is checked
        return "per tool"
    return "W,C" if spec.confirm == "conditional" else "W"


def first_sentence(text: str) -> str:
    """Up to the first full stop outside brackets that ends a sentence (not `e.g.`)."""
    depth = 0
    for i, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}" and depth > 0)
        ends = i + 1 == len(text) or text[i + 1].isspace()
        if char == "." and depth == 0 and ends and not text[:i].endswith(("e.g", "i.e", "etc")):
            return text[: i + 1].strip()
    return text.strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _facade_modes() -> tuple[str, ...]:
    from service.settings import ToolFacadeSettings

    return tuple(str(mode) for mode in get_args(ToolFacadeSettings.model_fields["mode"].annotation))


def render(specs: Iterable[ToolSpec]) -> str:
    """The whole page, ending in one newline."""
    by_domain: dict[str, list[ToolSpec]] = {}
    for spec in specs:
        by_domain.setdefault(spec.domain, []).append(spec)
    total = sum(len(group) for group in by_domain.values())
    lines = [
        "# Tools",
        "",
        f"<!-- Generated from the tool registry; do not edit. Regenerate with `{COMMAND}`. -->",
        "",
        f"{total} tools in {len(by_domain)} domains. Every tool also takes `vault`, `idempotency_key` and",
        "`elicit_token` (the last two also in the request's `_meta` as `vaultgate/idempotency_key` and",
        "`vaultgate/elicit_token`); failures carry a stable error `code`. Input and output schemas come",
        "with `tools/list` (or `describe_capability`).",
        "",
        "The class column:",
        "",
        *(f"- **{letter}** {meaning}" for letter, meaning in CLASSES),
        "",
        "Names reserved for tools not built yet are listed in [catalog-names.txt](catalog-names.txt).",
    ]
    for domain, group in by_domain.items():
        lines += ["", f"## {domain}", "", "| tool | class | title | what |", "|---|---|---|---|"]
        lines += [
            f"| `{s.name}` | {tool_class(s)} | {_cell(s.title)} | {_cell(first_sentence(s.description))} |"
            for s in group
        ]
    modes = _facade_modes()
    if set(modes) != set(FACADE_MODES):
        raise RuntimeError(f"facade modes {modes} are not all described in service/catalog_doc.py")
    lines += ["", "## Facade modes", "", "`tool_facade.mode` (or `--tool-facade`) decides what `tools/list` shows:", ""]
    lines += [f"- `{mode}`: {FACADE_MODES[mode]}" for mode in modes]
    lines += ["", "The `lean` mode's everyday tools: " + ", ".join(f"`{name}`" for name in LEAN) + "."]
    lines += ["", "Every tool stays callable by its own name in every mode, through the same checks."]
    return "\n".join(lines) + "\n"


def tools_page() -> str:
    """docs/tools.md for the registry this code builds."""
    from service.tools.registry import build_registry

    return render(build_registry())
