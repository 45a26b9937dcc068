"""The scenarios an engine serves: the loaded library, the default, and which one a namespace
(or a request's header) has chosen."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from mockserver import ids
from mockserver.engine.turn import DEFAULT_SCENARIO, SCENARIO_HEADER
from mockserver.errors import InvalidRequestError, ScenarioError
from mockserver.guess import did_you_mean
from mockserver.prompt import Prompt
from mockserver.scenario.library import builtin, builtin_names
from mockserver.settings import Settings
from mockserver.store import Namespace

if TYPE_CHECKING:  # scenarios are read here, never built: start-up does not import their models
    from mockserver.scenario.model import Scenario

__all__ = ["ScenarioShelf"]


class ScenarioShelf:
    """The engine's scenarios (a part of :class:`~mockserver.engine.core.Engine`)."""

    settings: Settings
    library: dict[str, Scenario]
    default: Scenario

    def replace_scenarios(self, scenarios: list[Scenario]) -> None:
        """Serve these (the first is the default); namespaces keep any scenario they chose."""
        self.library = {s.name: s for s in scenarios}
        self.default = self.library.get(DEFAULT_SCENARIO) or (
            scenarios[0] if scenarios else builtin(DEFAULT_SCENARIO)
        )

    def find_scenario(self, name: str) -> Scenario:
        """A loaded scenario by name, else a built-in one (``ScenarioError`` if neither, with
        a guess among both)."""
        found = self.library.get(name)
        if found is not None:
            return found
        builtins = builtin_names()
        if name in builtins:
            return builtin(name)
        loaded = f"loaded: {', '.join(self.library)}; " if self.library else ""
        raise ScenarioError(
            f"no scenario named {name!r}{did_you_mean(name, [*self.library, *builtins])} "
            f"({loaded}built-in: {', '.join(builtins)})"
        )

    def active_scenario(self, space: Namespace, prompt: Prompt | None = None) -> Scenario:
        if prompt is not None and SCENARIO_HEADER in prompt.headers:
            name = prompt.headers[SCENARIO_HEADER]
            try:
                return self.find_scenario(name)
            except ScenarioError as exc:
                raise InvalidRequestError(
                    f"{SCENARIO_HEADER}: {exc}", code="mockserver_unknown_scenario"
                ) from None
        scenario: Scenario | None = space.scenario
        return self.default if scenario is None else scenario

    def seed_for(self, space: Namespace, scenario: Scenario) -> int:
        """The namespace's own seed, else the scenario's, else the server's."""
        if space.seed is not None:
            return space.seed
        return self.settings.seed if scenario.seed is None else scenario.seed

    def rng_for(self, prompt: Prompt, *, seed: int, rule: str) -> random.Random:
        """Content derives from seed + rule + normalised request, never from shared counters."""
        return ids.derive_rng(seed, rule, prompt.fingerprint)

    def _scenario_named(self, name: str) -> Scenario | None:
        try:
            return self.find_scenario(name)
        except ScenarioError:
            return None
