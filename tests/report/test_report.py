"""The report built from journals (pure): outcomes, misses, errors, unused rules, masked keys,
and its JUnit view as a JUnit parser reads it."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import junitparser
import pytest

from mockserver.errors import ReportWriteError
from mockserver.report import (
    VERSION,
    Journal,
    Report,
    ScenarioRules,
    build_report,
    check_writable,
    fingerprint,
    junit_xml,
    write_reports,
)
from mockserver.report.model import Server
from mockserver.store import JournalEntry

KEY = "sk-proj-0123456789abcdefWXYZ"
OTHER = "sk-proj-9876543210fedcbaWXYZ"  # the same last four characters as KEY
SERVER = Server(version="0.1.0", seed=7, scenario="ci")
MISS = "No rule of scenario 'ci' matched chat request (model 'm', last user message 'bye').\n"
MISS += "  - rule 'greet': last user message 'bye' does not contain 'hello'"


def entry(seq: int, *, status: int = 200, **fields: object) -> JournalEntry:
    made = JournalEntry(seq=seq, method="POST", path="/v1/chat/completions", status=status)
    made.api, made.model = "chat", "m"
    for name, value in fields.items():
        setattr(made, name, value)
    return made


def error_body(kind: str, code: str | None, message: str) -> dict[str, object]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def journals() -> list[Journal]:
    served = Journal(
        namespace=KEY,
        scenario="ci",
        entries=[
            entry(1, rule="greet", summary="Hello there!", duration_ms=2.0),
            entry(2, miss=MISS, summary="generated words", duration_ms=1.5),
            entry(
                3,
                status=429,
                rule="flaky",
                summary="rate_limit_error: slow down",
                response=error_body("rate_limit_error", "rate_limit_exceeded", "Slow down."),
            ),
        ],
        hits={"ci": {"greet": 1, "flaky": 1}},
    )
    strict = Journal(
        namespace="checkout",  # a session name (x-mockserver-session): not a key, shown whole
        scenario="ci",
        entries=[
            entry(
                1,
                status=400,
                miss=MISS,
                summary="invalid_request_error: " + MISS,
                response=error_body("invalid_request_error", "mockserver_no_match", MISS),
            )
        ],
        hits={},
        dropped=2,
    )
    return [served, strict]


def report() -> Report:
    return build_report(
        journals(),
        scenarios=[ScenarioRules("ci", ("greet", "flaky", "never"))],
        server=SERVER,
    )


def test_each_call_says_what_answered_it() -> None:
    built = report()
    assert built["version"] == VERSION == 1
    assert [(c["namespace"], c["seq"], c["outcome"], c["rule"]) for c in built["calls"]] == [
        ("checkout", 1, "miss", None),
        ("sk-…WXYZ", 1, "matched", "greet"),
        ("sk-…WXYZ", 2, "generated", None),
        ("sk-…WXYZ", 3, "error", "flaky"),
    ]
    assert built["calls"][1] == {
        "namespace": "sk-…WXYZ",
        "seq": 1,
        "method": "POST",
        "path": "/v1/chat/completions",
        "api": "chat",
        "model": "m",
        "stream": False,
        "status": 200,
        "outcome": "matched",
        "rule": "greet",
        "miss": None,
        "summary": "Hello there!",
        "duration_ms": 2.0,
    }


def test_misses_strict_and_generated_are_listed_with_their_explanation() -> None:
    assert [(m["namespace"], m["seq"], m["answered"], m["status"]) for m in report()["misses"]] == [
        ("checkout", 1, "refused", 400),
        ("sk-…WXYZ", 2, "generated", 200),
    ]
    assert {m["explanation"] for m in report()["misses"]} == {MISS}


def test_error_answers_carry_the_apis_type_code_and_the_scripting_rule() -> None:
    assert [
        (e["namespace"], e["status"], e["type"], e["code"], e["rule"]) for e in report()["errors"]
    ] == [
        ("checkout", 400, "invalid_request_error", "mockserver_no_match", None),
        ("sk-…WXYZ", 429, "rate_limit_error", "rate_limit_exceeded", "flaky"),
    ]
    assert report()["errors"][1]["message"] == "Slow down."


def test_unused_rules_are_those_no_namespace_hit() -> None:
    built = report()
    assert built["unused_rules"] == [{"scenario": "ci", "rule": "never"}]
    assert built["scenarios"] == [
        {
            "name": "ci",
            "rules": [
                {"id": "greet", "hits": 1},
                {"id": "flaky", "hits": 1},
                {"id": "never", "hits": 0},
            ],
        }
    ]


def test_counts_add_up_and_name_what_left_the_journal() -> None:
    assert report()["counts"] == {
        "namespaces": 2,
        "calls": 4,
        "misses": 2,
        "errors": 2,
        "internal_errors": 0,
        "unused_rules": 1,
        "dropped": 2,
    }
    assert [(n["namespace"], n["calls"], n["dropped"]) for n in report()["namespaces"]] == [
        ("checkout", 1, 2),
        ("sk-…WXYZ", 3, 0),
    ]


def test_a_short_secret_is_not_looked_for_in_texts() -> None:
    journal = Journal(
        namespace="sk-1", scenario="ci", entries=[entry(1, summary="a test")], hits={}
    )
    built = build_report([journal], scenarios=[], server=SERVER, secrets=["t"])
    assert [(c["namespace"], c["summary"]) for c in built["calls"]] == [("sk-…", "a test")]


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("sk-proj-0123456789abcdefWXYZ", "sk-…WXYZ"),
        ("sk-short", "sk-…"),  # its last four would be half of it
        ("eyJhbGciOiJIUzI1NiJ9.e30.sig1", "…sig1"),  # a gateway token, not sk-
    ],
)
def test_a_key_is_shown_as_its_fingerprint(key: str, shown: str) -> None:
    assert fingerprint(key) == shown


def test_no_key_is_ever_written_whole() -> None:
    quoted = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWX1234"
    journal = Journal(
        namespace=KEY,
        scenario="ci",
        entries=[entry(1, summary=f"echo {KEY} and {quoted} and admin-token-42")],
        hits={},
    )
    twin = Journal(namespace=OTHER, scenario="ci", entries=[entry(1)], hits={})
    built = build_report([journal, twin], scenarios=[], server=SERVER, secrets=["admin-token-42"])
    text = json.dumps(built, ensure_ascii=False) + junit_xml(built)
    for secret in (KEY, OTHER, quoted, "admin-token-42"):
        assert secret not in text
    assert [n["namespace"] for n in built["namespaces"]] == ["sk-…WXYZ", "sk-…WXYZ (2)"]
    assert built["calls"][0]["summary"] == "echo sk-…WXYZ and sk-…1234 and …n-42"


def test_junit_has_a_test_case_per_namespace_failed_by_its_misses_and_errors() -> None:
    xml = junitparser.JUnitXml.fromstring(junit_xml(report()))
    [suite] = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("mockserver", 2, 2, 0)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"checkout", "sk-…WXYZ"}
    assert {case.classname for case in suite} == {"mockserver"}
    [strict] = cases["checkout"].result
    assert isinstance(strict, junitparser.Failure)
    assert strict.type == "mockserver.miss"
    assert strict.message == (
        "#1 POST /v1/chat/completions: 400, no rule matched (strict). " + MISS
    )
    [served] = cases["sk-…WXYZ"].result
    assert served.message.startswith(
        "#2 POST /v1/chat/completions: no rule matched, the reply was generated. No rule of"
    )
    assert served.message.endswith("does not contain 'hello' (and 1 more)")
    assert served.text.split("\n\n")[1] == (
        "#3 POST /v1/chat/completions: 429 rate_limit_error/rate_limit_exceeded, scripted by "
        "rule 'flaky'. Slow down."
    )
    assert cases["sk-…WXYZ"].system_out.splitlines()[0] == (
        "#1 POST /v1/chat/completions 200 chat m rule 'greet' 2 ms: Hello there!"
    )


def test_junit_passes_a_namespace_whose_calls_all_matched() -> None:
    journal = Journal(namespace="ok", scenario="ci", entries=[entry(1, rule="greet")], hits={})
    built = build_report([journal], scenarios=[], server=SERVER)
    [suite] = list(junitparser.JUnitXml.fromstring(junit_xml(built)))
    [case] = list(suite)
    assert (suite.tests, suite.failures, case.is_passed) == (1, 0, True)


def test_internal_errors_are_a_test_case_in_error() -> None:
    built = build_report(
        [],
        scenarios=[],
        server=SERVER,
        internal_errors=["Traceback (most recent call last):\n  ...\nKeyError: 'x'\n"],
    )
    [suite] = list(junitparser.JUnitXml.fromstring(junit_xml(built)))
    [case] = list(suite)
    [error] = case.result
    assert isinstance(error, junitparser.Error)
    assert (case.name, error.message, suite.errors) == ("(internal errors)", "KeyError: 'x'", 1)


def test_junit_survives_text_xml_cannot_carry() -> None:
    journal = Journal(
        namespace="ansi", scenario="ci", entries=[entry(1, summary="\x1b[31mred\x00")], hits={}
    )
    xml = junit_xml(build_report([journal], scenarios=[], server=SERVER))
    [suite] = list(junitparser.JUnitXml.fromstring(xml))
    assert next(iter(suite)).system_out.endswith(": \ufffd[31mred\ufffd")


def test_reports_are_written_whole_and_only_for_their_owner(tmp_path: Path) -> None:
    target, junit = tmp_path / "out" / "report.json", tmp_path / "out" / "junit.xml"
    write_reports(report(), json_path=str(target), junit_path=str(junit))
    assert json.loads(target.read_text()) == json.loads(json.dumps(report()))
    assert junitparser.JUnitXml.fromfile(str(junit)) is not None
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["junit.xml", "report.json"]


def test_a_report_path_that_cannot_be_written_is_refused_up_front(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(ReportWriteError, match="it is a folder"):
        check_writable(str(tmp_path / "taken"))
    (tmp_path / "file").write_text("")
    with pytest.raises(ReportWriteError, match="cannot write the report to"):
        check_writable(str(tmp_path / "file" / "report.json"))
