"""The built-in scenarios, precompiled: loaded without YAML or pydantic at start-up.

``builtin.json`` (next to this module) holds each built-in scenario as the loader produced it
(every field of every model, after validators ran), tagged with its model class, plus a digest
of the YAML it came from; one scenario per line, so that start-up parses only the line of the
scenario it serves. It is read back as :mod:`~mockserver.scenario.records` (each the exact
fields of its model, which is rebuilt with ``model_construct`` only when something needs more
than the fields), so that serving the default scenario imports neither YAML nor pydantic, the
larger part of ``mockserver serve``'s start-up. A file whose digest no longer matches is loaded
from YAML as usual, and ``tests/scenario/test_compiled.py`` keeps the file in step with
``scenarios/``: regenerate it with ``python -m mockserver.scenario.compiled``.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mockserver.scenario.records import Record

if TYPE_CHECKING:
    from pydantic import BaseModel

    from mockserver.scenario.model import Scenario

__all__ = ["COMPILED", "compile_library", "digest", "model_class", "precompiled"]

COMPILED = Path(__file__).with_name("builtin.json")
FORMAT = 2
_HEAD = f'{{"format": {FORMAT}, "scenarios": {{'


@cache
def _models() -> dict[str, type[BaseModel]]:
    from pydantic import BaseModel

    from mockserver.scenario import behaviour, lookups, model

    found: dict[str, type[BaseModel]] = {}
    for module in (lookups, behaviour, model):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
                found[value.__name__] = value
    return found


def model_class(name: str) -> type[BaseModel]:
    """The scenario model class named ``name``."""
    return _models()[name]


def digest(source: bytes) -> str:
    return hashlib.blake2b(source, digest_size=16).hexdigest()


def _encode(value: Any) -> Any:
    from pydantic import BaseModel

    from mockserver.scenario.regexes import Regex

    if isinstance(value, BaseModel):
        fields = {name: _encode(getattr(value, name)) for name in type(value).model_fields}
        return {
            "$model": type(value).__name__,
            "fields": fields,
            "set": sorted(value.model_fields_set),
        }
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):  # JSON would make them strings
            raise TypeError("cannot precompile a mapping with keys that are not strings")
        return {"$dict": {k: _encode(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, Regex):
        return {"$regex": value.pattern}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot precompile a {type(value).__name__} in a scenario")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$dict" in value:
        return {k: _decode(v) for k, v in value["$dict"].items()}
    if "$regex" in value:
        from mockserver.scenario.regexes import Regex

        return Regex(value["$regex"])
    fields = {name: _decode(v) for name, v in value["fields"].items()}
    return Record(value["$model"], fields, value["set"])


def compile_library(files: list[Path], load: Any) -> str:
    """The text of ``builtin.json`` for these scenario files (``load``: path → Scenario)."""
    lines = [
        f"{json.dumps(path.stem)}: "
        + json.dumps(
            {"digest": digest(path.read_bytes()), "scenario": _encode(load(path))},
            ensure_ascii=False,
        )
        for path in files
    ]
    return _HEAD + "\n" + ",\n".join(lines) + "\n}}\n"


def _entry(name: str) -> dict[str, Any] | None:
    """The entry of one scenario: only its line of the file is parsed."""
    try:
        text = COMPILED.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if not text.startswith(_HEAD + "\n"):
        return None
    key = f"\n{json.dumps(name)}: "
    start = text.find(key)
    if start < 0:
        return None
    line = text[start + len(key) : text.index("\n", start + 1)]
    entry: dict[str, Any] = json.loads(line.removesuffix(","))
    return entry


def precompiled(path: Path) -> Scenario | None:
    """The scenario of this built-in file, if precompiled from its current text."""
    entry = _entry(path.stem)
    if entry is None or entry["digest"] != digest(path.read_bytes()):
        return None
    scenario = _decode(entry["scenario"])
    assert isinstance(scenario, Record), scenario
    assert scenario._kind == "Scenario", scenario._kind
    return cast("Scenario", scenario)


def main() -> None:  # pragma: no cover - a maintainer's command
    from mockserver.scenario.library import builtin_files
    from mockserver.scenario.loader import load_file

    COMPILED.write_text(compile_library(builtin_files(), load_file), encoding="utf-8")
    print(f"wrote {COMPILED}")


if __name__ == "__main__":  # pragma: no cover
    main()
