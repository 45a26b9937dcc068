"""mockserver — a deterministic fake of the LLM APIs: OpenAI, Anthropic, Gemini, Bedrock, Ollama.

The public names are imported lazily so that ``import mockserver`` (e.g. by the pytest plugin
at collection time) costs almost nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from mockserver._version import __version__

__all__ = [
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

_LAZY = {
    "APIError": "mockserver.errors",
    "BackgroundServer": "mockserver.http.server",
    "MockServerError": "mockserver.errors",
    "Reply": "mockserver.scenario.model",
    "Rule": "mockserver.scenario.model",
    "Scenario": "mockserver.scenario.model",
    "ScenarioError": "mockserver.errors",
    "Settings": "mockserver.settings",
    "When": "mockserver.scenario.model",
    "create_app": "mockserver.http.app",
    "load_scenario": "mockserver.scenario.loader",
    "parse_scenario": "mockserver.scenario.loader",
    "scenario_to_yaml": "mockserver.scenario.loader",
}

if TYPE_CHECKING:
    from mockserver.errors import APIError, MockServerError, ScenarioError
    from mockserver.http.app import create_app
    from mockserver.http.server import BackgroundServer
    from mockserver.scenario.loader import load_file as load_scenario
    from mockserver.scenario.loader import parse_scenario, scenario_to_yaml
    from mockserver.scenario.model import Reply, Rule, Scenario, When
    from mockserver.settings import Settings


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mockserver' has no attribute {name!r}")
    return getattr(import_module(module), _RENAMED.get(name, name))


_RENAMED = {"load_scenario": "load_file"}
