"""The curated public surface, pinned: changing it is a deliberate act."""

from __future__ import annotations

import subprocess
import sys

import mockserver


def test_public_names_are_pinned() -> None:
    assert mockserver.__all__ == [
        "APIError",
        "BackgroundServer",
        "MockServerError",
        "Reply",
        "Rule",
        "Scenario",
        "ScenarioError",
        "Settings",
        "When",
        "__version__",
        "create_app",
        "load_scenario",
        "parse_scenario",
        "scenario_to_yaml",
    ]
    for name in mockserver.__all__:
        assert getattr(mockserver, name) is not None


def test_import_is_cheap() -> None:
    code = (
        "import sys, mockserver; heavy = [m for m in ('starlette', 'uvicorn', 'faker', "
        "'pydantic', 'openai') if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_scenarios_build_in_python_from_the_top_level() -> None:
    scenario = mockserver.Scenario(
        rules=[
            mockserver.Rule(
                when=mockserver.When.model_validate({"last_user": {"contains": "hi"}}),
                reply=mockserver.Reply(text="Hello"),
            )
        ]
    )
    assert mockserver.parse_scenario(mockserver.scenario_to_yaml(scenario)) == scenario
