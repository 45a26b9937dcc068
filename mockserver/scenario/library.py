"""Finding scenarios: files, directories of files, and the built-in library by name."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from mockserver.errors import ScenarioError
from mockserver.guess import did_you_mean

if TYPE_CHECKING:  # the loader (and YAML) is imported when a file is read, not at start-up
    from mockserver.scenario.model import Scenario

__all__ = [
    "SUFFIXES",
    "builtin",
    "builtin_files",
    "builtin_names",
    "fixtures_dir",
    "library_dir",
    "load_ref",
    "name_clashes",
    "no_scenario_files",
    "scenario_files",
]

SUFFIXES = (".yaml", ".yml", ".json")

_PACKAGE = Path(__file__).resolve().parents[1]
_CHECKOUT = _PACKAGE.parent


def library_dir() -> Path:
    """The built-in scenarios: ``mockserver/library`` in a wheel, ``scenarios/`` in a checkout
    (an editable install maps only the top-level package)."""
    shipped = _PACKAGE / "library"
    return shipped if shipped.is_dir() else _CHECKOUT / "scenarios"


def fixtures_dir() -> Path:
    shipped = _PACKAGE / "library" / "fixtures"
    return shipped if shipped.is_dir() else _CHECKOUT / "fixtures"


def _scenario_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix in SUFFIXES and p.is_file())


def builtin_files() -> list[Path]:
    return _scenario_files(library_dir())


def builtin_names() -> list[str]:
    return [p.stem for p in builtin_files()]


def _load_file(path: Path) -> Scenario:
    from mockserver.scenario.loader import load_file

    return load_file(path)


@cache
def builtin(name: str) -> Scenario:
    """A built-in scenario (loaded once per process: they never change), precompiled if it can
    be (see :mod:`mockserver.scenario.compiled`)."""
    from mockserver.scenario.compiled import precompiled

    for path in builtin_files():
        if path.stem == name:
            return precompiled(path) or _load_file(path)
    names = builtin_names()
    raise ScenarioError(
        f"no built-in scenario named {name!r}{did_you_mean(name, names)} "
        f"(built-in: {', '.join(names)})"
    )


def scenario_files(directory: Path) -> list[Path]:
    """The scenario files of a directory: its YAML and JSON files, except those its scenarios
    name as a ``fixture`` (a reply kept in a file next to them is not a scenario)."""
    from mockserver.scenario.loader import fixtures_named

    found = _scenario_files(directory)
    named = {fixture for path in found for fixture in fixtures_named(path)}
    return [path for path in found if path.resolve() not in named]


def no_scenario_files(directory: str) -> ScenarioError:
    return ScenarioError(f"no scenario files ({', '.join(SUFFIXES)}) in directory", file=directory)


def name_clashes(loaded: list[tuple[Path, Scenario]]) -> list[ScenarioError]:
    """A problem for each scenario whose name an earlier one of ``loaded`` (a directory's
    scenarios) already has: a name must say which file it means."""
    first: dict[str, Path] = {}
    clashes = []
    for path, scenario in loaded:
        taken = first.setdefault(scenario.name, path)
        if taken != path:
            clashes.append(
                ScenarioError(
                    f"scenario name {scenario.name!r} is already the name of {taken}: "
                    "each scenario of a directory needs a name of its own",
                    file=str(path),
                    line=_name_line(path),
                    field="name",
                )
            )
    return clashes


def _name_line(path: Path) -> int | None:
    """The line of a scenario file's top-level ``name`` key, if it has one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for number, line in enumerate(lines, start=1):
        if re.match(r"""(name|"name")\s*:""", line):
            return number
    return None


def load_ref(ref: str) -> list[Scenario]:
    """A file, every scenario file of a directory, or a built-in scenario's name."""
    path = Path(ref)
    if path.is_dir():
        found = scenario_files(path)
        if not found:
            raise no_scenario_files(ref)
        loaded = [(p, _load_file(p)) for p in found]
        clashes = name_clashes(loaded)
        if clashes:
            clashes[0].more = clashes[1:]
            raise clashes[0]
        return [scenario for _, scenario in loaded]
    if path.is_file():
        return [_load_file(path)]
    if path.suffix in SUFFIXES or "/" in ref:
        near = _scenario_files(path.parent) if path.parent.is_dir() else []
        hint = did_you_mean(path.name, [p.name for p in near])
        raise ScenarioError(f"no such scenario file{hint}", file=ref)
    return [builtin(ref)]
