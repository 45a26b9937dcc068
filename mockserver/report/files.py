"""A running server's report: read from its store, and written to files atomically."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mockserver
from mockserver.errors import ReportWriteError, ScenarioError
from mockserver.report.build import build_report
from mockserver.report.junit import junit_xml
from mockserver.report.model import Journal, Report, ScenarioRules, Server
from mockserver.wire.json_body import encode_json_pretty

if TYPE_CHECKING:
    from mockserver.engine import Engine

__all__ = ["check_writable", "collect", "write_reports"]


def collect(engine: Engine) -> Report:
    """The report of everything ``engine``'s store holds now."""
    journals: list[Journal] = []
    in_use: dict[str, ScenarioRules] = {}

    def use(name: str, scenario: Any = None) -> None:
        if name in in_use:
            return
        if scenario is None:
            try:
                scenario = engine.find_scenario(name)
            except ScenarioError:  # gone (an inline scenario since replaced): hits only
                scenario = None
        rules = tuple(r.id for r in scenario.rules if r.id) if scenario is not None else ()
        in_use[name] = ScenarioRules(name, rules)

    use(engine.default.name, engine.default)
    for name in engine.store.names():
        with engine.store.peek(name) as space:
            if space is None:
                continue
            active = engine.active_scenario(space)
            journals.append(
                Journal(
                    namespace=name,
                    scenario=active.name,
                    entries=tuple(space.journal),
                    hits={k: dict(v) for k, v in space.rule_hits.items()},
                    dropped=space.journal_seq - len(space.journal),
                )
            )
        use(active.name, active)
        for used in journals[-1].hits:
            use(used)
    settings = engine.settings
    return build_report(
        journals,
        scenarios=list(in_use.values()),
        server=Server(
            version=mockserver.__version__, seed=settings.seed, scenario=engine.default.name
        ),
        internal_errors=list(engine.internal_errors),
        secrets=[*settings.api_keys, settings.admin_token or ""],
    )


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` at ``path``, whole or not at all: a temporary file beside it, renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_writable(*paths: str | None) -> None:
    """Refuse, now, a report path whose folder cannot be made or written to."""
    for path in paths:
        if path is None:
            continue
        folder = Path(path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportWriteError(
                f"cannot write the report to {path}: {exc.strerror or exc}"
            ) from None
        if Path(path).is_dir() or not os.access(folder, os.W_OK):
            what = "it is a folder" if Path(path).is_dir() else f"{folder} is not writable"
            raise ReportWriteError(f"cannot write the report to {path}: {what}")


def write_reports(report: Report, *, json_path: str | None, junit_path: str | None) -> None:
    """Write ``report`` as JSON to ``json_path`` and as JUnit XML to ``junit_path`` (each if
    given), atomically: a reader never sees a half-written file."""
    render: dict[str, Callable[[], bytes]] = {}
    if json_path is not None:
        render[json_path] = lambda: encode_json_pretty(report) + b"\n"
    if junit_path is not None:
        render[junit_path] = lambda: junit_xml(report).encode()
    for path, data in render.items():
        try:
            _write_atomically(Path(path), data())
        except OSError as exc:
            raise ReportWriteError(
                f"cannot write the report to {path}: {exc.strerror or exc}"
            ) from None
