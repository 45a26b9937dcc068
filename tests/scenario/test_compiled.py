"""The precompiled built-in scenarios are exactly what loading their YAML gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from mockserver.scenario import compiled
from mockserver.scenario.compiled import COMPILED, compile_library, precompiled
from mockserver.scenario.library import builtin_files
from mockserver.scenario.loader import load_file
from mockserver.scenario.records import Record, materialize


def assert_identical(got: Any, want: Any, path: str = "scenario", *, records: bool = False) -> None:
    """Equal, and built alike: same types (``records``: a record for each model), same fields
    set, same key order, all the way down."""
    if isinstance(want, BaseModel) and records:
        assert isinstance(got, Record), path
        assert got._kind == type(want).__name__, path
        assert got._set == want.model_fields_set, path
    else:
        assert type(got) is type(want), path
    if isinstance(want, BaseModel):
        if not records:
            assert got.model_fields_set == want.model_fields_set, path
        assert list(vars(got)) == list(vars(want)), path
        for name, value in vars(want).items():
            assert_identical(vars(got)[name], value, f"{path}.{name}", records=records)
    elif isinstance(want, dict):
        assert list(got) == list(want), path
        for key, value in want.items():
            assert_identical(got[key], value, f"{path}[{key!r}]", records=records)
    elif isinstance(want, list):
        assert len(got) == len(want), path
        for index, (item, wanted) in enumerate(zip(got, want, strict=True)):
            assert_identical(item, wanted, f"{path}[{index}]", records=records)
    else:
        assert got == want, path


def test_compiled_file_is_generated_from_the_yaml_sources() -> None:
    assert COMPILED.read_text(encoding="utf-8") == compile_library(builtin_files(), load_file), (
        "scenarios/ changed: run `python -m mockserver.scenario.compiled`"
    )


def test_compiled_file_is_json_with_one_scenario_per_line() -> None:
    text = COMPILED.read_text(encoding="utf-8")
    names = [p.stem for p in builtin_files()]
    assert list(json.loads(text)["scenarios"]) == names
    assert len(text.splitlines()) == len(names) + 2  # the head, one line each, the tail


@pytest.mark.parametrize("path", builtin_files(), ids=lambda p: p.stem)
def test_every_builtin_scenario_is_precompiled_exactly(path: Path) -> None:
    scenario = precompiled(path)
    assert scenario is not None
    assert_identical(scenario, load_file(path), records=True)
    assert_identical(materialize(scenario), load_file(path))
    assert scenario == load_file(path)


def test_an_edited_builtin_file_is_read_from_yaml(tmp_path: Path) -> None:
    source = next(p for p in builtin_files() if p.stem == "default")
    edited = tmp_path / source.name
    edited.write_text(source.read_text(encoding="utf-8") + "seed: 3\n", encoding="utf-8")
    assert precompiled(edited) is None


def test_unknown_values_are_not_precompiled() -> None:
    with pytest.raises(TypeError, match="cannot precompile a set"):
        compiled._encode({1, 2})
    with pytest.raises(TypeError, match="keys that are not strings"):
        compiled._encode({None: "n", 2.5: "x"})
