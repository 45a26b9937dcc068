"""What a server served, for CI: a JSON report over every namespace, and the same as JUnit XML.

The report (``"version": 1``) lists every call the journals hold and what answered it, the
misses (requests no rule matched: refused in strict mode, else answered by the generator), the
error answers (4xx/5xx), our own internal errors, and the rules of each scenario in use that no
request hit. In its JUnit view each namespace is a test case, failed by its misses and error
answers, so a CI system shows them.

Namespaces are mostly API keys, so a report names a key by its fingerprint (``sk-…wxyz``) and
masks any key it would otherwise quote: the files can be uploaded as they are. Building either
view is pure (:func:`build_report`, :func:`junit_xml`); :func:`collect` reads a server's store,
and :func:`write_reports` writes the files atomically.
"""

from mockserver.errors import ReportWriteError
from mockserver.report.build import build_report, fingerprint
from mockserver.report.files import check_writable, collect, write_reports
from mockserver.report.junit import junit_xml
from mockserver.report.model import VERSION, Journal, Report, ScenarioRules

__all__ = [
    "VERSION",
    "Journal",
    "Report",
    "ReportWriteError",
    "ScenarioRules",
    "build_report",
    "check_writable",
    "collect",
    "fingerprint",
    "junit_xml",
    "write_reports",
]
