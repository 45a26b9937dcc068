"""Mutated copies of the shipped scenarios and fixtures load, or fail with a located
ScenarioError: never another exception, never a stall (each read has the upload's bounds).

Byte-level mutations (bytes changed, inserted, deleted, repeated, cut) and YAML-level ones
(a value replaced by another of any kind, a key dropped or renamed), a bounded number of
examples each, derandomized so that a run is the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mockserver.errors import ScenarioError
from mockserver.scenario.bounds import Bounds, decode_text
from mockserver.scenario.loader import load_file, parse_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
FIXTURES = sorted((ROOT / "fixtures").glob("*"))
#: An upload's bounds: a mutation that would cost more is a located error too.
BOUNDS = Bounds(max_bytes=8 * 1024 * 1024, seconds=5.0)
EXAMPLES = settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _problem(load: Callable[[], object]) -> ScenarioError | None:
    """What loading raised, if it raised a ScenarioError (anything else fails the test)."""
    try:
        load()
    except ScenarioError as exc:
        return exc
    return None


def _loads_or_locates(raw: bytes, source: str) -> None:
    problem = _problem(
        lambda: parse_scenario(
            decode_text(raw, source=source), source=source, base=ROOT / "fixtures", bounds=BOUNDS
        )
    )
    if problem is not None:
        assert problem.file == source, problem
        assert problem.line is not None, problem


@st.composite
def _mutated_bytes(draw: st.DrawFn, files: list[Path]) -> tuple[str, bytes]:
    path = draw(st.sampled_from(files))
    data = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["set", "insert", "delete", "repeat", "cut"]))
        if kind == "set" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8) | st.sampled_from(_TOKENS))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif kind == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 64))] * draw(st.integers(2, 50))
        elif kind == "cut":
            del data[at:]
    return path.name, bytes(data)


#: Bytes that mean something to YAML, to reach past the scanner more often than noise does.
_TOKENS = [
    b": ",
    b"- ",
    b"&a ",
    b"*a",
    b"<<: *a",
    b"!!binary ",
    b"{",
    b"[",
    b"'",
    b'"',
    b"\t",
    b"\n  ",
    b"---\n",
    b"? ",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\xe9",
    b"9" * 30,
]


@EXAMPLES
@given(_mutated_bytes(SCENARIOS))
def test_a_scenario_with_mutated_bytes_loads_or_is_a_located_error(
    mutation: tuple[str, bytes],
) -> None:
    name, raw = mutation
    _loads_or_locates(raw, name)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*path, index))
    return found


@st.composite
def _mutated_yaml(draw: st.DrawFn, files: list[Path]) -> tuple[str, bytes]:
    path = draw(st.sampled_from(files))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(_paths(data)))
        if not where:
            data = draw(_VALUES)
            continue
        parent = data
        for part in where[:-1]:
            parent = parent[part]
        kind = draw(st.sampled_from(["replace", "drop", "rename"]))
        if kind == "replace" or isinstance(parent, list):
            parent[where[-1]] = draw(_VALUES)
        elif kind == "drop":
            del parent[where[-1]]
        else:
            parent[draw(st.text(min_size=1, max_size=12))] = parent.pop(where[-1])
    return path.name, yaml.safe_dump(data, allow_unicode=True).encode()


@EXAMPLES
@given(_mutated_yaml(SCENARIOS))
def test_a_scenario_with_mutated_values_loads_or_is_a_located_error(
    mutation: tuple[str, bytes],
) -> None:
    name, raw = mutation
    _loads_or_locates(raw, name)


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mutated")
    (folder / "s.yaml").write_text("rules:\n  - reply: {fixture: mutated.json}\n", encoding="utf-8")
    return folder


def _fixture_loads_or_locates(folder: Path, raw: bytes) -> None:
    (folder / "mutated.json").write_bytes(raw)
    problem = _problem(lambda: load_file(folder / "s.yaml"))
    if problem is not None:  # at the scenario's `fixture:`, the fixture's place inside
        assert (problem.line, problem.field) == (2, "rules[0].reply.fixture"), problem


@EXAMPLES
@given(mutation=_mutated_bytes(FIXTURES))
def test_a_fixture_with_mutated_bytes_loads_or_is_a_located_error(
    fixture_dir: Path, mutation: tuple[str, bytes]
) -> None:
    _fixture_loads_or_locates(fixture_dir, mutation[1])


@EXAMPLES
@given(mutation=_mutated_yaml(FIXTURES))
def test_a_fixture_with_mutated_values_loads_or_is_a_located_error(
    fixture_dir: Path, mutation: tuple[str, bytes]
) -> None:
    _fixture_loads_or_locates(fixture_dir, mutation[1])
