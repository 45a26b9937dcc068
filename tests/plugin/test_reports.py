"""Failures that explain themselves: the "mockserver calls" section (terminal and JUnit XML),
and a verdict given once, with the test's own outcome."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from tests.plugin.conftest import block

Run = Callable[..., pytest.RunResult]

CAPITAL = """
def test_capital(mockserver):
    mockserver.on(id="france", last_user_contains="France").reply(text="Paris.")
    mockserver.on(model="gpt-5").reply(text="x")
    client = mockserver.client()
    client.models.retrieve("gpt-4o")
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "What is the capital of Spain?"}],
    )
    assert reply.choices[0].message.content == "Madrid."

def test_passes(mockserver):
    mockserver.client().chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
    )
"""

SECTION = [
    "2 requests in namespace 'sk-mock-test_capital-{digest}':",
    "  call 1: GET /v1/models/gpt-4o → answered, status 200",
    "  call 2: chat gpt-4o-mini, last user 'What is the capital of Spain?' "
    "→ no rule matched (fallback reply), status 200",
    "    - rule 'france': last user message 'What is the capital of Spain?' does not contain "
    "'France'",
    "    - rule 'inline-2': model 'gpt-4o-mini' does not equal 'gpt-5'",
]


def test_a_failed_test_reports_its_calls_and_why_each_rule_missed(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(test_capital=CAPITAL)
    result = run("--junitxml=junit.xml")
    result.assert_outcomes(failed=1, passed=1)
    header = next(line for line in result.outlines if line.startswith("2 requests in namespace"))
    digest = header.rsplit("-", 1)[1].removesuffix("':")
    expected = [SECTION[0].format(digest=digest), *SECTION[1:]]
    section = block(result.outlines, expected[0])
    assert section == expected
    title = result.outlines[result.outlines.index(expected[0]) - 1]
    assert title.strip("- ") == "mockserver calls"
    # One section, on the failed test only.
    assert sum("mockserver calls" in line for line in result.outlines) == 1

    root = ET.parse(pytester.path / "junit.xml").getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    properties = [(p.get("name"), p.get("value")) for p in cases["test_capital"].iter("property")]
    assert properties == [("mockserver calls", "\n".join(expected))]
    assert list(cases["test_passes"].iter("property")) == []


STRICT_SIX = """
import openai
import pytest

pytestmark = pytest.mark.mockserver(strict=True)
ASK = {"model": "gpt-4o", "messages": [{"role": "user", "content": "unexpected"}]}

@pytest.mark.parametrize("n", range(4))
def test_uncaught(mockserver, n):
    mockserver.on(last_user="expected").reply(text="ok")
    mockserver.client(max_retries=0).chat.completions.create(**ASK)

def test_swallowed(mockserver):
    try:
        mockserver.client(max_retries=0).chat.completions.create(**ASK)
    except openai.BadRequestError:
        pass

def test_fine(mockserver):
    mockserver.on(last_user="unexpected").reply(text="ok")
    mockserver.client().chat.completions.create(**ASK)
"""


def test_a_strict_miss_is_reported_once(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_six=STRICT_SIX)
    result = run()
    result.assert_outcomes(failed=5, passed=1)
    assert "5 failed, 1 passed in" in result.outlines[-1]
    assert not [line for line in result.outlines if "ERROR at teardown" in line]
    # The uncaught test shows the client's error, then the verdict, then the calls.
    text = result.stdout.str()
    uncaught = text[text.index("_ test_uncaught[0] _") : text.index("_ test_uncaught[1] _")]
    assert "openai.BadRequestError: Error code: 400" in uncaught
    assert "mockserver: 1 request matched no rule (strict):" in uncaught
    assert "→ no rule matched (strict), status 400" in uncaught
    swallowed = text[text.index("_ test_swallowed _") :]
    assert swallowed.splitlines()[1] == "mockserver: 1 request matched no rule (strict):"


def test_a_verdict_found_after_the_call_still_fails_the_teardown(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(
        test_late="""
        import pytest

        @pytest.fixture
        def late(mockserver):
            yield
            mockserver.on(last_user="never")  # a rule forgotten after the test ran

        @pytest.mark.mockserver(strict=True)
        def test_late(late, mockserver):
            pass
        """
    )
    result = run()
    result.assert_outcomes(passed=1, errors=1)
    assert "mockserver: 1 rule never given a reply:" in result.outlines
