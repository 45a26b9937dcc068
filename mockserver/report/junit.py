"""The report as a JUnit XML document (the Jenkins/Ant schema), for a CI system to show."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from mockserver.report.model import Call, ErrorRecord, Report

__all__ = ["junit_xml"]

#: Characters XML 1.0 cannot carry (a reply's text may hold any of them).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _call_line(call: Call) -> str:
    """``#2 POST /v1/chat/completions 200 chat gpt-4o (stream) rule 'greet' 3.1 ms: Hello``."""
    parts = [f"#{call['seq']}", call["method"], call["path"], str(call["status"])]
    parts += [p for p in (call["api"], call["model"]) if p]
    if call["stream"]:
        parts.append("(stream)")
    parts.append(f"rule '{call['rule']}'" if call["rule"] else call["outcome"])
    parts.append(f"{call['duration_ms']:g} ms")
    line = " ".join(parts)
    return f"{line}: {call['summary']}" if call["summary"] else line


def _problem(call: Call, error: ErrorRecord | None) -> str:
    """What was asked and why it failed, for a miss or an error answer."""
    asked = f"#{call['seq']} {call['method']} {call['path']}"
    if call["miss"] is not None and call["status"] >= 400:
        return f"{asked}: {call['status']}, no rule matched (strict). {call['miss']}"
    if call["miss"] is not None:
        return f"{asked}: no rule matched, the reply was generated. {call['miss']}"
    assert error is not None
    kind = "/".join(p for p in (error["type"], error["code"]) if p)
    scripted = f", scripted by rule '{error['rule']}'" if error["rule"] else ""
    return f"{asked}: {call['status']} {kind}{scripted}. {error['message']}"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _seconds(calls: Iterable[Call]) -> str:
    return f"{sum(c['duration_ms'] for c in calls) / 1000:.3f}"


def _testcase(parent: ET.Element, name: str, calls: list[Call], errors: list[ErrorRecord]) -> bool:
    """One namespace's test case (``name``: as the report shows it); is it a failure?"""
    case = ET.SubElement(
        parent, "testcase", classname="mockserver", name=_xml_text(name), time=_seconds(calls)
    )
    by_seq = {e["seq"]: e for e in errors}
    failed = [c for c in calls if c["miss"] is not None or c["status"] >= 400]
    if failed:
        # The message leads with a miss if there is one: what a scenario's author must fix.
        first = next((c for c in failed if c["miss"] is not None), failed[0])
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        failure = ET.SubElement(
            case,
            "failure",
            message=_xml_text(_problem(first, by_seq.get(first["seq"])) + more),
            type="mockserver.miss" if first["miss"] is not None else "mockserver.error",
        )
        failure.text = _xml_text("\n\n".join(_problem(c, by_seq.get(c["seq"])) for c in failed))
    out = ET.SubElement(case, "system-out")
    out.text = _xml_text("\n".join(_call_line(c) for c in calls) or "no calls")
    return bool(failed)


def junit_xml(report: Report) -> str:
    """``report`` as a JUnit XML document: a test case per namespace, failed by its misses and
    error answers (one ``<failure>`` that lists them all), and one that errs if the server had
    internal errors."""
    suites = ET.Element("testsuites", name="mockserver")
    suite = ET.SubElement(suites, "testsuite", name="mockserver")
    properties = ET.SubElement(suite, "properties")
    for key, value in report["server"].items():
        ET.SubElement(properties, "property", name=f"mockserver.{key}", value=_xml_text(str(value)))
    calls: dict[str, list[Call]] = {n["namespace"]: [] for n in report["namespaces"]}
    for call in report["calls"]:
        calls[call["namespace"]].append(call)
    errors: dict[str, list[ErrorRecord]] = {}
    for error in report["errors"]:
        errors.setdefault(error["namespace"], []).append(error)
    failed = sum(
        _testcase(suite, name, found, errors.get(name, [])) for name, found in calls.items()
    )
    internal = report["internal_errors"]
    if internal:
        case = ET.SubElement(suite, "testcase", classname="mockserver", name="(internal errors)")
        last = internal[0].strip().splitlines()[-1] if internal[0].strip() else "internal error"
        more = f" (and {len(internal) - 1} more)" if len(internal) > 1 else ""
        bug = ET.SubElement(case, "error", message=_xml_text(last + more), type="mockserver.bug")
        bug.text = _xml_text("\n".join(internal))
    tests = len(calls) + bool(internal)
    totals = {
        "tests": str(tests),
        "failures": str(failed),
        "errors": str(int(bool(internal))),
        "time": _seconds(report["calls"]),
    }
    suites.attrib.update(totals)
    suite.attrib.update({**totals, "skipped": "0"})
    unused = [
        f"unused rule '{u['rule']}' of scenario '{u['scenario']}'" for u in report["unused_rules"]
    ]
    counts = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in report["counts"].items())
    ET.SubElement(suite, "system-out").text = _xml_text("\n".join([counts, *unused]))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
