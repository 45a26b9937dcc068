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

from mockserver.errors import MockServerError, ScenarioError

if TYPE_CHECKING:
    from mockserver.engine import Engine
    from mockserver.record.recorder import Recorder
    from mockserver.scenario.model import Scenario
    from mockserver.settings import Settings

__all__ = ["main"]


def _version() -> str:
    """The installed distribution's version (its metadata), else the package's own."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mockserver")
    except PackageNotFoundError:  # run from a checkout that was never installed
        import mockserver

        return mockserver.__version__


class _VersionAction(argparse.Action):
    """``--version``, reading the distribution's metadata only when asked: importing
    ``importlib.metadata`` (and the ``email`` and ``zipfile`` it pulls in) is a tenth of
    ``serve``'s cold start."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        print(f"mockserver {_version()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mockserver",
        description="A deterministic fake of the OpenAI Chat Completions and Responses APIs.",
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
    _access_flags(serve)
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
        help="keep the state in this Redis, shared by every process using it (default: memory)",
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
    _recording_flags(serve)
    _record_verb(verbs)
    _import_verb(verbs)
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


def _recording_flags(parser: argparse.ArgumentParser, *, verb: bool = False) -> None:
    """Record & replay's flags: ``serve --record PATH`` and ``mockserver record`` share them."""
    if not verb:
        parser.add_argument(
            "--record",
            metavar="PATH",
            help="record to (or replay from) this scenario file through --upstream",
        )
    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="the OpenAI-compatible base URL to record from, …/v1 "
        "(default: env MOCKSERVER_UPSTREAM_URL)",
    )
    parser.add_argument(
        "--mode" if verb else "--record-mode",
        dest="record_mode",
        choices=["once", "new_episodes", "none", "all"],
        default="once",
        help="once: record if the file is absent, else replay (default); new_episodes: replay "
        "what is recorded, record the rest; none: replay only; all: re-record",
    )
    _written_flags(parser, form="--form" if verb else "--record-form", dest="record_form")
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="an upstream not connected within this is the client's 502 (default 5)",
    )
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="an upstream silent for this long is the client's 504 (default 120)",
    )


def _written_flags(parser: argparse.ArgumentParser, *, form: str, dest: str) -> None:
    """How a recording is written (``record``, ``serve --record``, ``import``)."""
    parser.add_argument(
        form,
        dest=dest,
        choices=["exact", "distilled"],
        default="exact",
        help="exact: replay byte for byte (default); distilled: neutral replies (both APIs)",
    )
    parser.add_argument(
        "--redact",
        action="append",
        metavar="REGEX",
        default=[],
        help="mask text matching REGEX in everything written (repeatable)",
    )


def _access_flags(parser: argparse.ArgumentParser) -> None:
    """The flags that guard the control plane (``serve`` and ``record`` alike)."""
    parser.add_argument(
        "--admin-token",
        metavar="TOKEN",
        help="required by /__mockserver/ (and to listen on a non-loopback address); every "
        "local user can read the command line (ps, /proc/PID/cmdline): prefer "
        "--admin-token-file or MOCKSERVER_ADMIN_TOKEN(_FILE)",
    )
    parser.add_argument(
        "--admin-token-file",
        metavar="PATH",
        help="read the admin token from this file (env MOCKSERVER_ADMIN_TOKEN_FILE)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a Host name the control plane answers besides loopback names and IP addresses "
        "(repeatable; .example.com: it and its subdomains; * any, which lets any web page "
        "reach /__mockserver/ by DNS rebinding)",
    )


def _record_verb(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    record = verbs.add_parser(
        "record", help="record an upstream's answers into a scenario file (a proxy; Ctrl-C stops)"
    )
    record.add_argument("--out", metavar="PATH", help="the scenario file to write")
    record.add_argument(
        "--check",
        metavar="PATH",
        help="replay PATH's requests against --upstream and report where the answers' shape "
        "changed (exit 1 on drift); writes nothing",
    )
    record.add_argument("--host", help="address to bind (default 127.0.0.1, loopback only)")
    record.add_argument("--port", type=int, help="port to listen on (default 8000; 0 = any free)")
    record.add_argument("--seed", type=int, help="seed for what mockserver itself answers")
    _access_flags(record)
    record.add_argument("--log-level", choices=["critical", "error", "warning", "info", "debug"])
    _recording_flags(record, verb=True)
    record.set_defaults(
        clock=None,
        scenario=None,
        watch=False,
        requests_per_minute=None,
        tokens_per_minute=None,
        cors_origin=None,
        api_key=None,
    )


def _import_verb(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imports = verbs.add_parser(
        "import", help="write a scenario from recordings you have (vcr cassettes, HAR files)"
    )
    kinds = imports.add_subparsers(dest="kind", metavar="<kind>")
    kinds.required = True
    for kind, what, name in (
        ("vcr", "vcrpy / pytest-recording cassettes (YAML or JSON) of OpenAI calls", "CASSETTE"),
        ("har", "a browser's HAR export (DevTools → Network → Export HAR)", "FILE"),
    ):
        parser = kinds.add_parser(kind, help=what)
        parser.add_argument("paths", nargs="+", metavar=name, help="the files, read in order")
        parser.add_argument("--out", required=True, metavar="PATH", help="the scenario to write")
        _written_flags(parser, form="--form", dest="form")
        parser.add_argument(
            "--append", action="store_true", help="add to the scenario PATH instead of a new one"
        )


def _import(args: argparse.Namespace) -> int:
    from mockserver.record.imports import import_files

    report = import_files(
        args.kind,
        [Path(p) for p in args.paths],
        out=Path(args.out),
        form=args.form,
        redact=tuple(args.redact),
        append=args.append,
    )
    print(report.text())
    return 0


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
        from mockserver.settings import Settings

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
        check_workers(workers, shared=settings.state_url is not None)
        recorder = _recorder(args, settings)
        if recorder is not None and recorder.scenario is not None:  # the cassette replays
            settings = settings.replace(scenario=str(recorder.recording.path))
        # loads the scenario first: a broken file fails before binding
        app = create_app(settings, recorder=recorder)
        on_stop = _report_writer(app.state.engine)
    sock = bind(settings.host, settings.port)
    settings = settings.replace(port=sock.getsockname()[1])

    def watch() -> None:
        if args.watch and settings.scenario:
            from mockserver.http.reload import ScenarioWatcher

            ScenarioWatcher(app.state.engine, settings.scenario).start()

    def ready() -> None:
        url = settings.base_url
        scenario = app.state.engine.default
        print(
            f"mockserver listening on {url}  (scenario {scenario.name}, seed {settings.seed}, "
            f"clock {settings.clock})"
        )
        key = settings.api_keys[0] if settings.api_keys else "sk-mock"  # one that is let in
        print(
            f"try: curl -s {url}/chat/completions -H 'Content-Type: application/json' "
            f"-H 'Authorization: Bearer {key}' "
            """-d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'"""
        )
        if scenario.fallback == "strict":
            print(
                f"  (scenario {scenario.name} is strict: a request none of its rules matches "
                "gets a 400 that says why)"
            )
        token = "?token=YOUR_ADMIN_TOKEN" if settings.admin_token else ""
        print(f"inspector: {url.removesuffix('/v1')}/__mockserver/{token}")
        if recorder is not None:
            print(recording_banner(recorder))
        if settings.state_url is not None:
            print(
                f"state: {settings.state_url} (prefix {settings.state_prefix}), {workers} worker(s)"
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
    watch()
    serve(app, sock, log_level=settings.log_level, on_ready=ready, on_stop=on_stop)
    return 0


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


def _recorder(args: argparse.Namespace, settings: Settings) -> Recorder | None:
    """The recorder ``serve --record`` / ``record --out`` asks for (``None``: not recording)."""
    path = getattr(args, "out", None) or getattr(args, "record", None)
    if path is None:
        return None
    if args.scenario:
        raise MockServerError("--scenario and --record: the recorded file is the scenario")
    from mockserver.record.recorder import Recorder, Recording

    return Recorder(
        Recording(
            Path(path),
            upstream=args.upstream or settings.upstream_url,
            api_key=settings.upstream_key,
            mode=args.record_mode,
            form=args.record_form,
            redact=tuple(args.redact),
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
        )
    )


def recording_banner(recorder: Recorder) -> str:
    recording = recorder.recording
    doing = "recording" if recorder.records else "replaying"
    if recorder.records and recorder.replays:
        doing = "replaying what is recorded, recording the rest"
    source = f" from {recording.upstream}" if recorder.records else ""
    return f"record: {doing} {recording.path}{source} (mode {recording.mode}, {recording.form})"


def _record(args: argparse.Namespace) -> int:
    if args.check:
        from mockserver.settings import Settings

        settings = Settings.from_env()
        upstream = args.upstream or settings.upstream_url
        if not upstream:
            raise MockServerError("record --check needs --upstream URL to replay against")
        from mockserver.http.drift import check_cassette

        report = check_cassette(
            Path(args.check),
            upstream=upstream,
            api_key=settings.upstream_key,
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
        )
        print(report.text(), file=sys.stdout)
        return 1 if report.drifted else 0
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
            return _import(args)
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
