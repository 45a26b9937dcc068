"""Scenarios: the YAML scripting language (``model``), its ``loader`` and the pure ``matcher``."""

from mockserver.scenario.model import Reply, Rule, Scenario, When

__all__ = ["Reply", "Rule", "Scenario", "When"]
