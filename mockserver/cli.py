"""``mockserver <verb>``: serve, validate, schema, scenarios."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from mockserver.cli_record import (
    access_flags,
    check_drift,
    import_verb,
    record_verb,
    recorder_for,
    recording_banner,
    recording_flags,
    run_import,
)
from mockserver.errors import MockServerError, ScenarioError

if TYPE_CHECKING:
    from mockserver.engine import Engine
    from mockserver.scenario.model import Scenario
    from mockserver.settings import Settings

__all__ = ["main"]


class _VersionAction(argparse.Action):
    """``--version``: the package's own (``mockserver/_version.py``, which the distribution's
    metadata is built from)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from mockserver._version import __version__

        print(f"mockserver {__version__}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mockserver",
        description=(
            "A deterministic fake of the LLM APIs: OpenAI, Anthropic, Gemini, Azure OpenAI, "
            "Bedrock and Ollama."
        ),
    )
    parser.add_argument("--version", action=_VersionAction, dest=argparse.SUPPRESS)
    verbs = parser.add_subparsers(dest="verb", metavar="<verb>")
    verbs.required = True
    serve = verbs.add_parser("serve", help="run the mock server (Ctrl-C stops it)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000; 0 = any free)")
    serve.add_argument("--seed", type=int, help="seed for every generated reply (default 0)")
    serve.add_argument(
        "--clock",
        choices=["real", "frozen"],
        help="'frozen' makes every timestamp the same (default real)",
    )
    serve.add_argument(
        "--scenario",
        metavar="FILE|DIR|NAME",
        help="scenario file, directory of scenarios, or built-in name",
    )
    serve.add_argument(
        "--watch", action="store_true", help="reload the scenario files when they change"
    )
    serve.add_argument(
        "--rpm",
        type=int,
        dest="requests_per_minute",
        help="requests-per-minute budget per namespace (429 beyond it)",
    )
    serve.add_argument(
        "--tpm",
        type=int,
        dest="tokens_per_minute",
        help="tokens-per-minute budget per namespace (429 beyond it)",
    )
    serve.add_argument(
        "--log-level",
        choices=["critical", "error", "warning", "info", "debug"],
        help="how much to log (default info; debug adds an access log line per request)",
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="a web page origin allowed to call the server (repeatable; default * on loopback)",
    )
    access_flags(serve)
    serve.add_argument(
        "--api-key",
        action="append",
        metavar="KEY",
        help="only these API keys may call /v1 (repeatable; default: any key)",
    )
    serve.add_argument(
        "--report",
        metavar="PATH",
        help="write what was served as JSON at shutdown (SIGTERM too) and on GET "
        "/__mockserver/report",
    )
    serve.add_argument(
        "--report-junit",
        metavar="PATH",
        help="the same as JUnit XML: a test case per namespace, failed by its misses and errors",
    )
    serve.add_argument(
        "--state",
        metavar="redis://HOST:PORT/DB",
        help="keep the state in this Redis, shared by every process using it (rediss:// for "
        "TLS, unix:///PATH?db=N for a unix socket; default: memory)",
    )
    serve.add_argument(
        "--state-prefix",
        metavar="PREFIX",
        help="start of every Redis key (two servers sharing one Redis; default mockserver)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="N processes on one port (N > 1 needs --state; default 1)",
    )
    recording_flags(serve)
    record_verb(verbs)
    import_verb(verbs)
    validate = verbs.add_parser(
        "validate",
        help="check scenario files; exit 1 on any problem (the summary on stdout, each problem "
        "and warning on stderr)",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    validate.add_argument("--json", action="store_true", help="machine-readable output")
    schema = verbs.add_parser(
        "schema", help="print (or write) the JSON Schema of scenario files, for editors"
    )
    schema.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write it to FILE (for a yaml-language-server modeline)",
    )
    verbs.add_parser("scenarios", help="list the built-in scenarios")
    return parser


@contextmanager
def frozen_start_up() -> Iterator[None]:
    """Run start-up without the cyclic garbage collector, then exempt what it built from it.

    Start-up builds ~70,000 objects that live as long as the server (modules, classes, models,
    the scenario) and little cyclic garbage (the classes ``dataclass(slots=True)`` replaces:
    ~0.3 MiB, kept), so each collection during it re-walks the survivors for nothing: ~10% of
    the time to the first answer. Frozen, they are never walked again, by later collections
    either. A start-up that fails freezes nothing.
    """
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        gc.enable()


#: ``serve``'s flags, by the setting each one sets.
_SETTING_FLAGS = {
    "--host": "host",
    "--port": "port",
    "--seed": "seed",
    "--clock": "clock",
    "--scenario": "scenario",
    "--log-level": "log_level",
    "--rpm": "requests_per_minute",
    "--tpm": "tokens_per_minute",
    "--cors-origin": "cors_origins",
    "--admin-token": "admin_token",
    "--admin-token-file": "admin_token_file",
    "--api-key": "api_keys",
    "--report": "report",
    "--report-junit": "report_junit",
    "--allowed-host": "allowed_hosts",
    "--state": "state_url",
    "--state-prefix": "state_prefix",
}


def _serve(args: argparse.Namespace) -> int:
    with frozen_start_up():
        from mockserver.http.app import create_app
        from mockserver.http.server import bind, serve
        from mockserver.settings import Settings, shown_state_url

        settings = Settings.from_env(
            sources={name: flag for flag, name in _SETTING_FLAGS.items()},
            host=args.host,
            port=args.port,
            seed=args.seed,
            clock=args.clock,
            scenario=args.scenario,
            log_level=args.log_level,
            requests_per_minute=args.requests_per_minute,
            tokens_per_minute=args.tokens_per_minute,
            cors_origins=tuple(args.cors_origin) if args.cors_origin else None,
            admin_token=args.admin_token,
            admin_token_file=args.admin_token_file,
            api_keys=tuple(args.api_key) if args.api_key else None,
            report=getattr(args, "report", None),  # serve only (not record)
            report_junit=getattr(args, "report_junit", None),
            allowed_hosts=tuple(args.allowed_host) if args.allowed_host else None,
            state_url=getattr(args, "state", None),
            state_prefix=getattr(args, "state_prefix", None),
        )
        from mockserver.http.workers import check_workers, serve_workers

        workers = getattr(args, "workers", 1)
        recorder = recorder_for(args, settings)
        check_workers(
            workers,
            shared=settings.state_url is not None,
            records=recorder is not None and recorder.records,
            reports=settings.report is not None or settings.report_junit is not None,
        )
        if recorder is not None and recorder.scenario is not None:  # the cassette replays
            settings = settings.replace(scenario=str(recorder.recording.path))
        # loads the scenario first: a broken file fails before binding
        app = create_app(settings, recorder=recorder)
        write_report = _report_writer(app.state.engine)
    sock = bind(settings.host, settings.port)
    settings = settings.replace(port=sock.getsockname()[1])

    def watch(worker: int = 1) -> None:
        if args.watch and settings.scenario:
            from mockserver.http.reload import ScenarioWatcher

            # Every worker reloads its own engine; the first one says what happened.
            ScenarioWatcher(app.state.engine, settings.scenario, reports=worker == 1).start()

    def ready() -> None:
        url = settings.base_url
        if recorder is None:
            print("\n".join(_serve_banner(settings, app.state.engine.default)))
        else:  # a proxy: the scenario, seed and clock are not what it is about
            print("\n".join(recording_banner(recorder, url=url)))
        token = "?token=YOUR_ADMIN_TOKEN" if settings.admin_token else ""
        print(f"inspector: {url.removesuffix('/v1')}/__mockserver/{token}")
        if settings.state_url is not None:
            print(
                f"state: {shown_state_url(settings.state_url)} (prefix {settings.state_prefix}), "
                f"{workers} worker(s)"
            )
        print("Ctrl-C to stop.", flush=True)

    if workers > 1:
        return serve_workers(
            app,
            sock,
            workers=workers,
            serve=lambda app, sock: serve(app, sock, log_level=settings.log_level),
            on_ready=ready,
            in_worker=watch,
        )

    def on_stop() -> None:
        if recorder is not None and recorder.records:
            print(recorder.summary(), flush=True)
        if write_report is not None:
            write_report()

    watch()
    serve(app, sock, log_level=settings.log_level, on_ready=ready, on_stop=on_stop)
    return 0


def _serve_banner(settings: Settings, scenario: Scenario) -> list[str]:
    """What ``serve`` says it serves, and a request to try."""
    url = settings.base_url
    key = settings.api_keys[0] if settings.api_keys else "sk-mock"  # one that is let in
    lines = [
        f"mockserver listening on {url}  (scenario {scenario.name}, seed {settings.seed}, "
        f"clock {settings.clock})",
        f"try: curl -s {url}/chat/completions -H 'Content-Type: application/json' "
        f"-H 'Authorization: Bearer {key}' "
        """-d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'""",
    ]
    if scenario.fallback == "strict":
        lines.append(
            f"  (scenario {scenario.name} is strict: a request none of its rules matches "
            "gets a 400 that says why)"
        )
    return lines


def _report_writer(engine: Engine) -> Callable[[], None] | None:
    """What writes ``--report``/``--report-junit`` at shutdown, once their folders are known
    to take them (a path that cannot be written fails now, not after the run)."""
    settings = engine.settings
    if settings.report is None and settings.report_junit is None:
        return None
    from mockserver.report import check_writable, collect, write_reports

    check_writable(settings.report, settings.report_junit)

    def write() -> None:
        report = collect(engine)
        write_reports(report, json_path=settings.report, junit_path=settings.report_junit)
        counts = report["counts"]
        written = " and ".join(p for p in (settings.report, settings.report_junit) if p)
        print(
            f"mockserver: report written to {written} ({counts['calls']} call(s), "
            f"{counts['misses']} miss(es), {counts['errors']} error(s), "
            f"{counts['unused_rules']} unused rule(s))",
            flush=True,
        )

    return write


def _record(args: argparse.Namespace) -> int:
    if args.check:
        return check_drift(args)
    if not args.out:
        raise MockServerError("record needs --out PATH (or --check PATH)")
    args.record = args.out
    return _serve(args)


def _first_words(text: str, width: int) -> str:
    """``text`` on one line, cut at a word boundary to ``width`` characters (with "…")."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    return line[: width - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _validate(args: argparse.Namespace) -> int:
    from mockserver.scenario.library import (
        load_ref,
        name_clashes,
        no_scenario_files,
        scenario_files,
    )
    from mockserver.scenario.shadowing import shadowed_rules

    files: list[Path] = []
    problems: list[ScenarioError] = []
    warnings: list[tuple[str, str]] = []

    def check(path: Path) -> Scenario | None:
        files.append(path)
        try:
            [scenario] = load_ref(str(path))
        except ScenarioError as exc:
            problems.extend([exc, *exc.more])
            return None
        warnings.extend((str(path), s.message) for s in shadowed_rules(scenario))
        return scenario

    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():  # each file on its own, then their names together
            found = scenario_files(path)
            if not found:
                problems.append(no_scenario_files(raw))
            loaded = [(f, check(f)) for f in found]
            problems += name_clashes([(f, s) for f, s in loaded if s is not None])
        else:
            check(path)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "file": p.file,
                        "line": p.line,
                        "column": p.column,
                        "rule": p.rule,
                        "field": p.field,
                        "message": p.message,
                    }
                    for p in problems
                ],
                indent=2,
            )
        )
        for file, message in warnings:
            print(f"{file}: warning: {message}", file=sys.stderr)
    else:
        for problem in problems:
            print(problem.located(), file=sys.stderr)
        for file, message in warnings:
            print(f"{file}: warning: {message}", file=sys.stderr)
        summary = f"{len(files)} file(s) checked, {len(problems)} problem(s)"
        if warnings:
            summary += f", {len(warnings)} warning(s)"
        print(summary)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.verb == "serve":
            return _serve(args)
        if args.verb == "record":
            return _record(args)
        if args.verb == "import":
            return run_import(args)
        if args.verb == "validate":
            return _validate(args)
        if args.verb == "schema":
            from mockserver.scenario.editor_schema import scenario_json_schema

            text = json.dumps(scenario_json_schema(), indent=2) + "\n"
            if args.output:
                Path(args.output).write_text(text, encoding="utf-8")
                print(f"wrote {args.output}; point your editor at it with the first line")
                print(f"# yaml-language-server: $schema={args.output}")
            else:
                sys.stdout.write(text)
            return 0
        if args.verb == "scenarios":
            from mockserver.scenario.library import builtin, builtin_names

            for name in builtin_names():
                print(f"{name:24} {_first_words(builtin(name).description, 70)}")
            return 0
    except MockServerError as exc:
        print(f"mockserver: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `mockserver schema | head` is fine
        return 0
    return 2
