"""The docs' hook makes its pages from the code: every verb, flag and scenario key is there,
and a hand-written table that no longer lists the code's keys fails the build."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from mockserver import cli
from mockserver.scenario.editor_schema import scenario_json_schema

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "mockserver_docs.py"


@pytest.fixture(scope="module")
def hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mockserver_docs", HOOK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_page_has_every_verb_and_flag(hook: ModuleType) -> None:
    parser = cli._parser()
    page = hook.cli_markdown(parser)

    def check(parser: argparse.ArgumentParser, prefix: str) -> int:
        verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        count = 0  # the verbs checked, nested ones too
        for name, sub in verbs.choices.items():
            assert f"### `{prefix} {name}`" in page
            count += 1
            for action in sub._actions:
                if isinstance(action, argparse._SubParsersAction):
                    count += check(sub, f"{prefix} {name}")
                for option in action.option_strings:
                    if option not in ("-h", "--help"):
                        assert f"`{option}`" in page, option
        return count

    assert check(parser, "mockserver") >= 8
    assert "### `mockserver import vcr`" in page  # a verb of a verb has its section too


def test_the_scenario_reference_has_every_object_and_key(hook: ModuleType) -> None:
    schema = scenario_json_schema()
    page = hook.scenario_schema_markdown(schema)
    for name, node in {"Scenario": schema, **schema["$defs"]}.items():
        assert f"{{#schema-{name.lower()}}}" in page
        branches = node.get("anyOf", [node])
        for branch in branches:
            for key in branch.get("properties", {}):
                assert f"| `{key}` |" in page, (name, key)
    assert "| `tool_calls` | list of [ToolCallSpec](#schema-toolcallspec) | — |" in page


@pytest.mark.parametrize(
    ("table", "argument", "fails"),
    [
        ("| key | what |\n|---|---|\n| `name`, `call_id` | a |\n| `content` | b |\n", "", False),
        ("| key | what |\n|---|---|\n| `name` | a |\n| `content` | b |\n", "", True),
        ("| key | what |\n|---|---|\n| `name` | a |\n| `content` | b |\n", " some", False),
        ("| key | what |\n|---|---|\n| `name` | a |\n| `nmae` | b |\n", " some", True),
    ],
)
def test_a_table_must_list_the_keys_of_its_object(
    hook: ModuleType, table: str, argument: str, fails: bool
) -> None:
    check = hook.check_table_keys
    markdown = "<!-- keys: ToolResultMatch -->\n" + table
    start = markdown.index("\n")
    arguments = (markdown, start, "ToolResultMatch" + argument, scenario_json_schema())
    if fails:
        with pytest.raises(PluginError, match="does not list the keys of ToolResultMatch"):
            check(*arguments, where="page.md")
    else:
        check(*arguments, where="page.md")


def test_an_included_file_loses_its_title_and_its_headings_go_down(hook: ModuleType) -> None:
    text = "# Title\n\nText.\n\n## Part\n\n```bash\n# a comment\n```\n"
    assert hook.include_markdown(text) == "Text.\n\n### Part\n\n```bash\n# a comment\n```\n"


DOCS = HOOK.parents[1]


def test_the_generated_sections_committed_in_the_pages_are_current(hook: ModuleType) -> None:
    """The pages hold what the build makes (read on a forge, or in a checkout, they show every
    flag and key); a change to the code's flags or keys fails here until the sections are
    rewritten with ``python docs/hooks/mockserver_docs.py``."""
    pages = {
        page: page.read_text(encoding="utf-8")
        for page in (DOCS / "cli.md", DOCS / "scenario-reference.md")
    }
    for page, text in pages.items():
        assert hook.GENERATED.search(text), f"{page.name} holds no generated section"
        assert hook.refreshed(text, where=page.name) == text, (
            f"{page.name}: its generated section is stale: run {hook.REGENERATE}"
        )
    assert "### `mockserver serve`" in pages[DOCS / "cli.md"]
    assert "| `last_user` |" in pages[DOCS / "scenario-reference.md"]


def test_a_generated_marker_without_its_end_fails_the_build(hook: ModuleType) -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_path="cli.md"))
    config = {"config_file_path": str(DOCS.parent / "mkdocs.yml")}
    with pytest.raises(PluginError, match="no <!-- end generated: cli -->"):
        hook.on_page_markdown("<!-- generated: cli -->\n", page, config, None)
    committed = "a\n\n<!-- generated: cli -->\n\nstale\n\n<!-- end generated: cli -->\n"
    made = hook.on_page_markdown(committed, page, config, None)
    assert "stale" not in made
    assert "### `mockserver serve`" in made
