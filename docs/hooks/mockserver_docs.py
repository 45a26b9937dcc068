"""mkdocs hooks: the parts of the docs that are made from the code, so they cannot drift.

Markers, each an HTML comment alone on its line in a page:

- ``<!-- generated: NAME -->`` … ``<!-- end generated: NAME -->``: a section made from the
  code, committed in the page between its two markers (so it reads on a forge and in a
  checkout too) and made again at every build. ``scenario-schema``: every object of the
  scenario format, one table of keys each, from the JSON Schema that ``mockserver schema``
  prints; ``cli``: every verb and flag of ``mockserver``, from its argparse parser. Run this
  file (``python docs/hooks/mockserver_docs.py``) to rewrite the committed sections;
  ``tests/docs/test_hooks.py`` fails while one is stale.
- ``<!-- include: PATH -->``: a Markdown file of the repository (PATH from the top), its title
  dropped and its headings one level down.
- ``<!-- keys: MODEL -->`` before a hand-written table: the backticked names of its first column
  must be exactly the keys of that object of the scenario format (``<!-- keys: MODEL some -->``:
  only keys of it), or the build fails.

The JSON Schema is published with the site, at ``schema/scenario-v1.json``.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

SCHEMA_PATH = "schema/scenario-v1.json"
MARKER = re.compile(r"^<!-- (generated|include|keys): ([^>]*?) -->$", re.MULTILINE)
#: A generated section as its page holds it: the section between its two markers.
GENERATED = re.compile(
    r"^<!-- generated: (?P<name>[\w-]+) -->\n(?P<body>.*?)^<!-- end generated: (?P=name) -->$",
    re.MULTILINE | re.DOTALL,
)
#: How to rewrite the generated sections the pages hold.
REGENERATE = "python docs/hooks/mockserver_docs.py"
FENCE = re.compile(r"^(```|~~~)")
CODE = re.compile(r"<code>[^<]*</code>")


def on_files(files: Files, config: Any) -> Files:
    """Publish the scenario JSON Schema with the site, for editors."""
    from mockserver.scenario.editor_schema import scenario_json_schema

    text = json.dumps(scenario_json_schema(), indent=2) + "\n"
    files.append(File.generated(config, SCHEMA_PATH, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    root = Path(config["config_file_path"]).parent
    source = page.file.src_path
    # The committed sections are made again: the site shows the code as it is now.
    markdown = GENERATED.sub(
        lambda match: generated_markdown(match["name"], markdown, where=source), markdown
    )

    def replace(match: re.Match[str]) -> str:
        kind, argument = match.group(1), match.group(2).strip()
        where = f"{source}: <!-- {kind}: {argument} -->"
        if kind == "generated":
            raise PluginError(
                f"{where}: no <!-- end generated: {argument} --> after it: a generated section "
                f"is committed in its page (run {REGENERATE})"
            )
        if kind == "include":
            return include_markdown((root / argument).read_text(encoding="utf-8"))
        if kind == "keys":
            check_table_keys(markdown, match.end(), argument, _schema(), where=where)
            return match.group(0)
        raise PluginError(f"{where}: unknown marker")

    return MARKER.sub(replace, markdown)


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """A pipe escaped in a table (``\\|``) stays escaped inside code, where Python-Markdown
    leaves the backslash (GitHub drops it): drop it here too."""
    return CODE.sub(lambda match: match.group(0).replace("\\|", "|"), html)


def generated_markdown(name: str, markdown: str, *, where: str) -> str:
    """The generated section ``name`` of a page whose Markdown is ``markdown``."""
    if name == "scenario-schema":
        return scenario_schema_markdown(_schema(), notes=table_notes(markdown))
    if name == "cli":
        return cli_markdown(_cli_parser())
    raise PluginError(f"{where}: unknown generated section {name!r}")


def refreshed(markdown: str, *, where: str) -> str:
    """``markdown`` with each generated section it holds made again from the code, between
    its markers (blank lines around it: a comment is a block of its own in Markdown)."""

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        body = generated_markdown(name, markdown, where=where).strip("\n")
        return f"<!-- generated: {name} -->\n\n{body}\n\n<!-- end generated: {name} -->"

    return GENERATED.sub(fill, markdown)


def main() -> None:
    """Rewrite the generated sections of every page under ``docs/`` that holds one."""
    docs = Path(__file__).resolve().parents[1]
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        fresh = refreshed(text, where=str(page.relative_to(docs)))
        if fresh != text:
            page.write_text(fresh, encoding="utf-8")
            print(f"rewrote {page.relative_to(docs.parent)}")


def _schema() -> dict[str, Any]:
    from mockserver.scenario.editor_schema import scenario_json_schema

    return scenario_json_schema()


def _cli_parser() -> argparse.ArgumentParser:
    from mockserver import cli

    return cli._parser()


# --- the scenario format ------------------------------------------------------------------


def scenario_schema_markdown(
    schema: dict[str, Any], *, notes: dict[tuple[str, str], str] | None = None
) -> str:
    """One section per object: the scenario, a rule, its ``when`` and its reply first, then
    the others in the order they are first referred to."""
    defs = schema.get("$defs", {})
    root = {key: value for key, value in schema.items() if key != "$defs"}
    objects = {"Scenario": root, **defs}
    order = [name for name in ("Scenario", "Rule", "When", "Reply") if name in objects]
    for name in order:
        for ref in re.findall(r'"\$ref": "#/\$defs/(\w+)"', json.dumps(objects[name])):
            if ref not in order:
                order.append(ref)
    order += [name for name in defs if name not in order]
    return "\n".join(_object_section(name, objects[name], notes or {}) for name in order)


def _anchor(name: str) -> str:
    return "schema-" + name.lower()


def table_notes(markdown: str) -> dict[tuple[str, str], str]:
    """What the page's ``<!-- keys: MODEL -->`` tables say of each key, to its first clause:
    for the keys whose model has no description of its own."""
    notes = {}
    for match in MARKER.finditer(markdown):
        if match.group(1) != "keys":
            continue
        model = match.group(2).split()[0]
        for row in _table_after(markdown, match.end())[2:]:
            cells = re.split(r"(?<!\\)\|", row)
            if len(cells) < 4:
                continue
            first = re.split(r"(?<=\w)\. |; | — | \(", cells[2].strip())[0]
            for key in re.findall(r"`([\w.-]+)(?::[^`]*)?`", cells[1]):
                notes[(model, key)] = first
    return notes


def _table_after(markdown: str, start: int) -> list[str]:
    rows = []
    for line in markdown[start:].lstrip("\n").splitlines():
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def _object_section(name: str, node: dict[str, Any], notes: dict[tuple[str, str], str]) -> str:
    shorthand = ""
    if "anyOf" in node:  # a model that also takes a bare value (``model: gpt-4o``)
        bare = [_type(n) for n in node["anyOf"] if "$ref" not in n and "properties" not in n]
        node = next(n for n in node["anyOf"] if "properties" in n)
        shorthand = f" A bare {' or '.join(bare)} stands for `equals`."
    description = " ".join(node.get("description", "").split())
    lines = [f"### `{name}` {{#{_anchor(name)}}}", ""]
    if description or shorthand:
        lines += [(description + shorthand).strip(), ""]
    lines += ["| key | type | default | what it is |", "|---|---|---|---|"]
    required = set(node.get("required", ()))
    for key, prop in node.get("properties", {}).items():
        default = "required" if key in required else _default(prop)
        text = _cell(" ".join(prop.get("description", "").split()))
        lines.append(
            f"| `{key}` | {_type(prop)} | {default} | {text or notes.get((name, key), '')} |"
        )
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(prop: dict[str, Any]) -> str:
    if "default" not in prop or prop["default"] is None:
        return "—"
    return _cell(f"`{json.dumps(prop['default'], ensure_ascii=False)}`")


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "anyOf" in node:
        parts = [_type(n) for n in node["anyOf"] if n.get("type") != "null"]
        return " or ".join(dict.fromkeys(parts))
    if "enum" in node:
        return " \\| ".join(_cell(f"`{json.dumps(v)}`".replace('"', "")) for v in node["enum"])
    if "const" in node:
        return _cell(f"`{node['const']}`")
    kind = node.get("type")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}" + _bounds(node)
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, dict):
            keys = node.get("propertyNames", {}).get("enum")
            named = f" (keys {', '.join(f'`{k}`' for k in keys)})" if keys else ""
            return f"map of {_type(values)}{named}"
        return "object"
    if kind in ("string", "integer", "number", "boolean"):
        return kind + _bounds(node)
    return "any"


def _bounds(node: dict[str, Any]) -> str:
    signs = {
        "minimum": "≥",
        "exclusiveMinimum": ">",
        "maximum": "≤",
        "exclusiveMaximum": "<",
        "minItems": "items ≥",
        "maxItems": "items ≤",
        "minLength": "length ≥",
    }
    found = [f"{sign} {node[key]:,}" for key, sign in signs.items() if key in node]
    return f" ({', '.join(found)})" if found else ""


def check_table_keys(
    markdown: str, start: int, argument: str, schema: dict[str, Any], *, where: str
) -> None:
    """The table after ``start`` names the keys of ``argument``: in its first column, the keys
    of that object of the scenario format; for ``settings``, anywhere in it, the environment
    variable of every setting."""
    name, _, mode = argument.partition(" ")
    rows = _table_after(markdown, start)
    if name == "settings":
        keys = _setting_variables()
        named = set(re.findall(r"`(MOCKSERVER_\w+)`", "\n".join(rows[2:])))
    else:
        node = {"Scenario": schema, **schema.get("$defs", {})}.get(name)
        if node is None:
            raise PluginError(f"{where}: the scenario format has no object {name!r}")
        keys = set(node.get("properties", {}))
        named = set()
        for row in rows[2:]:
            named.update(re.findall(r"`([\w.-]+)(?::[^`]*)?`", re.split(r"(?<!\\)\|", row)[1]))
    unknown, missing = named - keys, keys - named
    if not rows or unknown or (missing and mode != "some"):
        raise PluginError(
            f"{where}: the table does not list the keys of {name}: "
            f"not keys of it {sorted(unknown)}, missing {sorted(missing)}"
        )


def _setting_variables() -> set[str]:
    import dataclasses

    from mockserver.settings import ENV_PREFIX, Settings

    return {ENV_PREFIX + field.name.upper() for field in dataclasses.fields(Settings)}


# --- the command line ---------------------------------------------------------------------


def cli_markdown(parser: argparse.ArgumentParser) -> str:
    """Every verb (and every verb of a verb, ``import vcr``): what it does, its usage line, and
    a table of its arguments."""
    return "\n".join(_verb_sections(parser, "mockserver"))


def _verb_sections(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {action.dest: action.help for action in verbs._choices_actions}
    sections = []
    for name, sub in verbs.choices.items():
        sub.formatter_class = _fixed_width
        usage = sub.format_usage().removeprefix("usage: ").strip()
        what = helps.get(name) or ""
        lines = [f"### `{prefix} {name}`", "", what[:1].upper() + what[1:] + ".", ""]
        lines += ["```text", usage, "```", ""]
        nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
        rows = [
            _argument_row(a)
            for a in sub._actions
            if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
        ]
        if rows:
            lines += ["| argument | value | what it does |", "|---|---|---|", *rows, ""]
        sections.append("\n".join(lines))
        if nested:
            sections += _verb_sections(sub, f"{prefix} {name}")
    return sections


def _fixed_width(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=80)


def _argument_row(action: argparse.Action) -> str:
    names = (
        ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar or action.dest}`"
    )
    if action.choices:
        value = " \\| ".join(f"`{c}`" for c in action.choices)
    elif action.nargs == 0:
        value = "—"
    else:
        value = f"`{action.metavar or action.dest.upper()}`"
    if isinstance(action, argparse._AppendAction):
        value += " (repeatable)"
    if action.nargs == "+":
        value += " (one or more)"
    return f"| {names} | {value} | {_cell(action.help or '')} |"


# --- includes -----------------------------------------------------------------------------


def include_markdown(text: str) -> str:
    """``text`` without its title, its headings one level down (code blocks left alone)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            continue
        elif not fenced and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    return "\n".join(lines).strip() + "\n"


if __name__ == "__main__":
    main()
