"""What a wheel ships: every subpackage, the scenario library, its fixtures, the inspector."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_python_package_is_listed() -> None:
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "mockserver").rglob("__init__.py")
    }
    assert found <= set(CONFIG["packages"])
    assert "pytest_mockserver" in CONFIG["packages"]


def test_library_and_fixtures_ship_inside_the_package() -> None:
    mapped = CONFIG["package-dir"]
    assert mapped["mockserver.library"] == "scenarios"
    assert mapped["mockserver.library.fixtures"] == "fixtures"
    data = CONFIG["package-data"]
    scenarios = list((ROOT / "scenarios").iterdir())
    assert scenarios
    for name in scenarios:
        assert name.suffix in {".yaml", ".md"}, f"{name} would not ship"
    assert "*.yaml" in data["mockserver.library"]
    fixtures = {p.suffix for p in (ROOT / "fixtures").iterdir()}
    assert fixtures
    assert fixtures <= {".json", ".yaml", ".jsonl"}


def test_inspector_assets_ship() -> None:
    listed = set(CONFIG["package-data"]["mockserver.http.inspector"])
    present = {
        p.name
        for p in (ROOT / "mockserver" / "http" / "inspector").iterdir()
        if p.suffix in {".html", ".js", ".css"}
    }
    assert present <= listed


def test_precompiled_scenarios_ship() -> None:
    assert "builtin.json" in CONFIG["package-data"]["mockserver.scenario"]
    assert (ROOT / "mockserver" / "scenario" / "builtin.json").is_file()
