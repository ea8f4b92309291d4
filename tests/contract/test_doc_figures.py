"""The figures the README, docs/policies.md and docs/configuration.md give for `tools/list` follow the registry: tool
counts and sizes are measured here as tests/toollist_size.py measures them (KB = 1,000 bytes,
tokens ~ bytes / 4) and must agree with the prose within `TOLERANCE`. When this fails after
tools were added, write the figures the failure prints. The RFC 9728 `resource_documentation`
link names a page that exists."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from service.__main__ import _parser
from service.http.routes import RESOURCE_DOCUMENTATION
from service.policy.visibility import LEAN
from tests.contract.test_toollist_budget import listed
from tests.toollist_size import measure

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
POLICIES = (REPO / "docs" / "policies.md").read_text(encoding="utf-8")
CONFIGURATION = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
TOLERANCE = 0.05  # a figure rounded to whole KB, or a tool or two added since the prose was written
REPOSITORY = "https://github.com/vaultgate/vaultgate/blob/main/"


def _near(written: float, actual: float, *, slack: float = 0.0) -> bool:
    return abs(written - actual) <= max(TOLERANCE * actual, slack)


def _prose(size: dict[str, Any]) -> str:
    return (
        f"{size['tools']} tools, {size['model_bytes'] / 1000:.0f} KB (~{size['model_tokens_est'] / 1000:.0f}k tokens)"
        f", {size['wire_bytes'] / 1000:.0f} KB on the wire"
    )


def _figures(pattern: str, text: str) -> tuple[float, ...]:
    found = re.search(pattern, text.replace("\n", " "))
    assert found is not None, f"the sentence with the figures is gone: {pattern}"
    return tuple(float(g) for g in found.groups())


def test_the_readme_gives_the_default_tool_list_as_measured() -> None:
    size = measure(listed("lean"))
    tools, kb, tokens_k, wire_kb = _figures(
        r"(\d+) tools, about (\d+) KB of names, descriptions and input schemas for the model "
        r"\(~(\d+)k tokens; (\d+) KB on the wire",
        README,
    )
    assert tools == size["tools"], _prose(size)
    assert _near(kb * 1000, size["model_bytes"], slack=500), _prose(size)
    assert _near(tokens_k * 1000, size["model_tokens_est"], slack=500), _prose(size)
    assert _near(wire_kb * 1000, size["wire_bytes"], slack=500), _prose(size)


def test_policies_give_the_flat_and_lean_lists_as_measured() -> None:
    flat, lean = measure(listed("flat")), measure(listed("lean"))
    tools, kb, tokens_k = _figures(r"in `flat` mode, (\d+) tools cost ~(\d+) KB \(~(\d+)k tokens\)", POLICIES)
    assert _near(tools, flat["tools"]), _prose(flat)
    assert _near(kb * 1000, flat["model_bytes"], slack=500), _prose(flat)
    assert _near(tokens_k * 1000, flat["model_tokens_est"], slack=500), _prose(flat)
    everyday, tools, kb, tokens_k = _figures(
        r"`lean` advertises the (\d+) tools most sessions use .*? plus the capability triad: (\d+) tools, "
        r"~(\d+) KB \(~(\d+)k tokens\)",
        POLICIES,
    )
    assert everyday == len(LEAN) and tools == lean["tools"], _prose(lean)
    assert _near(kb * 1000, lean["model_bytes"], slack=500), _prose(lean)
    assert _near(tokens_k * 1000, lean["model_tokens_est"], slack=500), _prose(lean)


def test_the_configuration_page_gives_the_lean_and_flat_lists_as_measured() -> None:
    """Its `tool_facade.mode` paragraph said 21 KB (~5k tokens) against 110 KB for flat while
    the lists measured 29 and 148 KB: no test read that page."""
    flat, lean = measure(listed("flat")), measure(listed("lean"))
    kb, tokens_k, flat_kb, flat_tokens_k = _figures(
        r"its list costs about (\d+) KB \(~(\d+)k tokens\) of context"
        r" instead of ~(\d+) KB \(~(\d+)k tokens\) for `flat`",
        CONFIGURATION,
    )
    assert _near(kb * 1000, lean["model_bytes"], slack=500), _prose(lean)
    assert _near(tokens_k * 1000, lean["model_tokens_est"], slack=500), _prose(lean)
    assert _near(flat_kb * 1000, flat["model_bytes"], slack=500), _prose(flat)
    assert _near(flat_tokens_k * 1000, flat["model_tokens_est"], slack=500), _prose(flat)


def test_the_tools_guide_names_the_lean_tools() -> None:
    """Its "Which tools tools/list shows" paragraph left out search_memory and add_observations,
    which joined `LEAN` after it was written (docs/tools.md, generated, had them)."""
    text = (REPO / "docs" / "tools-guide.md").read_text(encoding="utf-8").replace("\n", " ")
    found = re.search(r"By default \(`tool_facade.mode = \"lean\"`\) the everyday tools — (.*?) — and", text)
    assert found is not None, "the paragraph naming the lean tools is gone"
    assert sorted(re.findall(r"`(\w+)`", found.group(1))) == sorted(LEAN)


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_the_resource_documentation_link_names_a_page_and_anchor_that_exist() -> None:
    assert RESOURCE_DOCUMENTATION.startswith(REPOSITORY), RESOURCE_DOCUMENTATION
    path, _, anchor = RESOURCE_DOCUMENTATION.removeprefix(REPOSITORY).partition("#")
    page = REPO / path
    assert page.is_file(), path
    assert not anchor or anchor in _anchors(page.read_text(encoding="utf-8")), anchor


def test_links_with_an_anchor_name_a_heading_of_their_page() -> None:
    """`docs/security.md#sending-a-token` and the like: the file exists (test_readme.py) and so
    does the heading."""
    broken = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s:]+\.md)#([^)\s]+)\)", page.read_text(encoding="utf-8")):
            linked = (page.parent / target[0]).resolve()
            if linked.is_file() and target[1] not in _anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(REPO)}: {target[0]}#{target[1]}")
    assert not broken, broken


def test_the_configuration_page_lists_every_command_of_the_cli() -> None:
    """Its command-line table left out `vaultgate healthcheck` and `vaultgate docs plan-schema`."""
    text = CONFIGURATION.split("## Configuration", 1)[0]
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, sub in commands.choices.items():
        words = [name]
        for action in sub._actions:  # `config show`, `token mint`, `docs tools`: each its own row
            if isinstance(action, argparse._SubParsersAction) or action.dest == "page":
                words = [f"{name} {word}" for word in action.choices or ()]
        missing += [word for word in words if f"`vaultgate {word}" not in text]
    assert not missing, missing
