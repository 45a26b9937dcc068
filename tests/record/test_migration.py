"""The vcrpy / pytest-recording migration, as the docs show it: a cassette imported once, then
served to a test by the pytest plugin's marker."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mockserver.cli import main

SAMPLES = Path(__file__).parent / "samples"

TEST = """
import pytest


@pytest.mark.mockserver(scenario="tests/scenarios/weather.yaml")
def test_says_the_weather(mockserver):
    client = mockserver.client()
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What is the weather?"}]
    )
    assert reply.choices[0].message.content == "It is 21 °C and sunny in Boston."
"""


def test_an_imported_cassette_serves_the_plugins_marker(pytester: pytest.Pytester) -> None:
    cassette = pytester.path / "tests" / "cassettes" / "test_weather" / "weather.yaml"
    cassette.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "openai_sdk.yaml", cassette)
    out = pytester.path / "tests" / "scenarios" / "weather.yaml"
    assert main(["import", "vcr", str(cassette), "--out", str(out)]) == 0
    pytester.makepyfile(test_weather=TEST)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--mockserver-in-process"
    )
    result.assert_outcomes(passed=1)
