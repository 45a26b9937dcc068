"""YAML → :class:`Scenario`, failing loudly with file, line, column, rule and field.

``yaml.safe_load`` semantics (no object construction), read once within bounds
(:mod:`~mockserver.scenario.document`), with every data path mapped to its line, so a pydantic
error can be reported where the user wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from pydantic import ValidationError

from mockserver.errors import ScenarioError
from mockserver.scenario.bounds import Bounds, Deadline, check_data, decode_text
from mockserver.scenario.captured import captured_reply, is_sse_text, sse_payloads
from mockserver.scenario.document import read_document
from mockserver.scenario.library import SUFFIXES
from mockserver.scenario.model import Reply, Scenario
from mockserver.scenario.problems import (
    Marks,
    Path_,
    error_path,
    field_name,
    located_errors,
    message,
)
from mockserver.scenario.regexes import RegexBudget

__all__ = [
    "SUFFIXES",
    "fixtures_named",
    "load_file",
    "parse_scenario",
    "parse_upload",
    "reply_from_data",
    "scenario_from_data",
    "scenario_to_yaml",
]

_A_MAPPING = "a scenario file holds a mapping (name, rules, …)"


def _read(
    text: str, source: str, *, bounds: Bounds | None = None, deadline: Deadline | None = None
) -> tuple[Any, Marks]:
    # An empty file is more likely a failed save or the wrong file than a wish for defaults.
    empty = f"the file is empty: {_A_MAPPING}; write {{}} for a scenario with every default"
    return read_document(text, source=source, empty=empty, bounds=bounds, deadline=deadline)


def parse_scenario(
    text: str,
    *,
    source: str = "<string>",
    base: Path | None = None,
    confined: bool = False,
    bounds: Bounds | None = None,
) -> Scenario:
    """A scenario from YAML text; ``base`` is where relative ``fixture`` paths start.
    ``confined`` (a scenario sent over HTTP): its fixtures must be inside a fixtures directory,
    so that a client cannot make any readable file on the server's machine a reply. ``bounds``:
    what reading it may cost (by default, a file's: no size or time bound)."""
    deadline = Deadline((bounds or Bounds()).seconds)
    data, marks = _read(text, source, bounds=bounds, deadline=deadline)
    return _parsed(data, marks, source=source, base=base, confined=confined, deadline=deadline)


def parse_upload(text: str, *, bounds: Bounds, source: str = "<PUT body>") -> Scenario | str:
    """A scenario sent over HTTP as YAML, read once within ``bounds``; or the name it gives
    and nothing else (``name: plain-chat``: a reference to a scenario by name, not a scenario
    of no rules)."""
    deadline = Deadline(bounds.seconds)
    data, marks = _read(text, source, bounds=bounds, deadline=deadline)
    if isinstance(data, Mapping) and set(data) == {"name"} and isinstance(data["name"], str):
        return data["name"]
    return _parsed(data, marks, source=source, base=None, confined=True, deadline=deadline)


def _parsed(
    data: Any,
    marks: Marks,
    *,
    source: str,
    base: Path | None,
    confined: bool,
    deadline: Deadline,
) -> Scenario:
    if not isinstance(data, Mapping):
        line, column = marks.of(())
        raise ScenarioError(_A_MAPPING, file=source, line=line, column=column)
    if deadline.passed():
        raise deadline.error(source=source)
    scenario = _scenario(data, marks, source=source, base=base, confined=confined)
    if "name" not in data and source not in ("<string>",):
        scenario = scenario.model_copy(update={"name": Path(source).stem})
    return scenario


def reply_from_data(data: object, *, field: str | None = None) -> Reply:
    """A scenario reply from parsed data (a queued one-off reply); its first problem is
    reported as a file's would be (an unknown key with a guess), at ``field`` + its path."""
    try:
        return Reply.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        path = error_path(data, error)
        said = message(error, ("rules", 0, "reply", *path))  # keys as a rule's reply has
        where = ".".join(str(p) for p in ([field] if field else []) + list(path))
        raise ScenarioError(said, field=where or None) from None


def scenario_from_data(
    data: object,
    *,
    source: str = "<mapping>",
    confined: bool = False,
    bounds: Bounds | None = None,
) -> Scenario:
    """A scenario from already-parsed data (JSON, a Python mapping), with the same problems
    a file would get (every one, with rule and field; no lines to give). ``confined``: as for
    :func:`parse_scenario`; ``bounds``: how many values it may hold, how deep."""
    if not isinstance(data, Mapping):
        raise ScenarioError(_A_MAPPING, file=source)
    if bounds is not None:
        check_data(data, bounds=bounds, source=source)
    return _scenario(data, Marks({}), source=source, base=None, confined=confined)


def _scenario(
    data: Mapping[str, Any], marks: Marks, *, source: str, base: Path | None, confined: bool
) -> Scenario:
    data = _with_fixtures(data, marks, source=source, base=base, confined=confined)
    try:
        return Scenario.model_validate(data, context={"regexes": RegexBudget()})
    except ValidationError as exc:
        raise located_errors(exc, data, marks, source) from None


def _fixture_roots(base: Path | None) -> list[Path]:
    from mockserver.scenario.library import fixtures_dir

    roots = [base] if base is not None else []
    roots += [Path.cwd() / "fixtures", fixtures_dir()]
    return roots


def fixtures_named(path: Path) -> set[Path]:
    """The files a scenario file's replies name as ``fixture`` (resolved as loading would; a
    file that cannot be read names none: loading it reports why)."""
    try:
        data, _ = _read(decode_text(path.read_bytes(), source=str(path)), str(path))
    except (OSError, ScenarioError):
        return set()
    rules = data.get("rules") if isinstance(data, Mapping) else None
    replies: list[Any] = []
    for rule in rules if isinstance(rules, list) else []:
        if isinstance(rule, Mapping):
            replies.append(rule.get("reply"))
            more = rule.get("replies")
            replies += more if isinstance(more, list) else []
    roots = _fixture_roots(path.parent)
    named = set()
    for reply in replies:
        name = reply.get("fixture") if isinstance(reply, Mapping) else None
        if isinstance(reply, Mapping) and isinstance(reply.get("recorded"), Mapping):
            name = reply["recorded"].get("fixture")
        found = next(
            (r / name for r in roots if isinstance(name, str) and (r / name).is_file()), None
        )
        if found is not None:
            named.add(found.resolve())
    return named


class _Fixtures(NamedTuple):
    """Where a scenario's fixtures are looked for, and whether they must stay there."""

    roots: list[Path]
    confined: bool


def _load_fixture(name: str, fixtures: _Fixtures) -> Any:
    for root in fixtures.roots:
        candidate = root / name
        if candidate.is_file():
            if fixtures.confined and not candidate.resolve().is_relative_to(root.resolve()):
                raise PermissionError(
                    f"fixture {name!r} is a link to a file outside {root}: a scenario sent to "
                    "the server may only name a fixture inside a fixtures directory"
                )
            text = decode_text(candidate.read_bytes(), source=str(candidate))
            if is_sse_text(text):  # a captured stream, pasted as it came
                return sse_payloads(text)
            data, _ = read_document(
                text, source=str(candidate), empty="the fixture file is empty: it holds a reply"
            )
            return data
    searched = ", ".join(str(r) for r in fixtures.roots)
    raise FileNotFoundError(f"fixture {name!r} not found (searched {searched})")


def _with_fixtures(
    data: Mapping[str, Any], marks: Marks, *, source: str, base: Path | None, confined: bool
) -> dict[str, Any]:
    """Replace each ``{fixture: path}`` reply by the reply the file holds, checked now."""
    out = dict(data)
    rules = out.get("rules")
    if not isinstance(rules, list):
        return out
    fixtures = _Fixtures(_fixture_roots(base), confined)
    new_rules = []
    for index, rule in enumerate(rules):
        if isinstance(rule, Mapping):
            rule = dict(rule)
            for key in ("reply", "replies"):
                rule[key] = _resolve(rule.get(key), ("rules", index, key), fixtures, marks, source)
            rule = {k: v for k, v in rule.items() if v is not None or k in rules[index]}
        new_rules.append(rule)
    out["rules"] = new_rules
    return out


def _resolve(value: Any, path: Path_, fixtures: _Fixtures, marks: Marks, source: str) -> Any:
    if isinstance(value, list):
        return [_resolve(v, (*path, i), fixtures, marks, source) for i, v in enumerate(value)]
    if isinstance(value, Mapping) and isinstance(value.get("recorded"), Mapping):
        return _with_recording(value, (*path, "recorded"), fixtures, marks, source)
    if not isinstance(value, Mapping) or not isinstance(value.get("fixture"), str):
        return value
    line, column = marks.of((*path, "fixture"))
    where = {
        "file": source,
        "line": line,
        "column": column,
        "field": field_name((*path, "fixture")),
    }
    name = Path(value["fixture"])
    if fixtures.confined and (name.is_absolute() or ".." in name.parts):
        raise ScenarioError(
            f"fixture {value['fixture']!r}: a scenario sent to the server may only name a "
            "fixture inside a fixtures directory (a relative path without '..')",
            **where,  # type: ignore[arg-type]
        )
    try:
        loaded = _load_fixture(value["fixture"], fixtures)
        reply = Reply.model_validate(captured_reply(loaded) or loaded)
    except OSError as exc:
        raise ScenarioError(str(exc), **where) from None  # type: ignore[arg-type]
    except ScenarioError as exc:  # the fixture file's own problem, located in it
        raise ScenarioError(
            f"fixture {value['fixture']!r}: {exc.located()}",
            **where,  # type: ignore[arg-type]
        ) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ScenarioError(
            f"fixture {value['fixture']!r} is not a valid reply: "
            f"{field_name(tuple(first['loc']))}: {first['msg']}",
            **where,  # type: ignore[arg-type]
        ) from None
    extra = {k: v for k, v in value.items() if k != "fixture"}
    return {**reply.model_dump(mode="json", by_alias=True, exclude_none=True), **extra}


def _with_recording(
    value: Mapping[str, Any], path: Path_, fixtures: _Fixtures, marks: Marks, source: str
) -> Any:
    """A ``recorded: {fixture: file}`` reply with the recording the file holds."""
    recorded = value["recorded"]
    name = recorded.get("fixture")
    if not isinstance(name, str):
        return value
    line, column = marks.of((*path, "fixture"))
    where: dict[str, Any] = {
        "file": source,
        "line": line,
        "column": column,
        "field": field_name((*path, "fixture")),
    }
    if fixtures.confined and (Path(name).is_absolute() or ".." in Path(name).parts):
        raise ScenarioError(
            f"fixture {name!r}: a scenario sent to the server may only name a fixture inside "
            "a fixtures directory (a relative path without '..')",
            **where,
        )
    try:
        loaded = _load_fixture(name, fixtures)
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(exc), **where) from None
    if not isinstance(loaded, Mapping):
        raise ScenarioError(f"recording {name!r} is not a mapping (status, headers, …)", **where)
    rest = {k: v for k, v in recorded.items() if k != "fixture"}
    return {**value, "recorded": {**loaded, **rest}}


def load_file(path: Path) -> Scenario:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(
            f"cannot read scenario file: {exc.strerror or exc}", file=str(path)
        ) from None
    text = decode_text(raw, source=str(path))
    return parse_scenario(text, source=str(path), base=path.parent)


def scenario_to_yaml(scenario: Scenario) -> str:
    """YAML that :func:`parse_scenario` reads back into an equal scenario."""
    data = scenario.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    data.setdefault("name", scenario.name)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's: ~4x faster
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True)
