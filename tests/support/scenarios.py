"""A test's scenario, put in its namespace through the control API."""

from __future__ import annotations

import httpx

__all__ = ["use_scenario"]


def use_scenario(control: httpx.Client, scenario: str) -> None:
    """Switch the namespace ``control`` speaks for to ``scenario`` (YAML)."""
    answer = control.put(
        "/scenario", content=scenario, headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200, answer.text
