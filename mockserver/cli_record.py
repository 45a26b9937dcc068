"""``mockserver record`` and ``import``, and ``serve --record``: the command line of record &
replay (its flags, its verbs, the recorder a verb asks for); ``cli.py`` runs them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mockserver.errors import MockServerError

if TYPE_CHECKING:
    from mockserver.record.recorder import Recorder
    from mockserver.settings import Settings

__all__ = [
    "access_flags",
    "check_drift",
    "import_verb",
    "record_verb",
    "recorder_for",
    "recording_banner",
    "recording_flags",
    "run_import",
]


def access_flags(parser: argparse.ArgumentParser) -> None:
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


def recording_flags(parser: argparse.ArgumentParser, *, verb: bool = False) -> None:
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
        help="the base URL to record from: an OpenAI-compatible one's …/v1, or, for the Gemini "
        "API, its host (default: env MOCKSERVER_UPSTREAM_URL)",
    )
    parser.add_argument(
        "--mode" if verb else "--record-mode",
        dest="record_mode",
        choices=["once", "new_episodes", "none", "all"],
        default="once",
        help="once: record if the file is absent, else replay (default); new_episodes: replay "
        "what is recorded, record the rest; none: replay only; all: re-record",
    )
    written_flags(parser, form="--form" if verb else "--record-form", dest="record_form")
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


def written_flags(parser: argparse.ArgumentParser, *, form: str, dest: str) -> None:
    """How a recording is written (``record``, ``serve --record``, ``import``)."""
    parser.add_argument(
        form,
        dest=dest,
        choices=["exact", "distilled"],
        default="exact",
        help="exact: replay byte for byte (default); distilled: neutral replies (every API)",
    )
    parser.add_argument(
        "--redact",
        action="append",
        metavar="REGEX",
        default=[],
        help="mask text matching REGEX in everything written (repeatable)",
    )


def record_verb(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    access_flags(record)
    record.add_argument("--log-level", choices=["critical", "error", "warning", "info", "debug"])
    recording_flags(record, verb=True)
    record.set_defaults(
        clock=None,
        scenario=None,
        watch=False,
        requests_per_minute=None,
        tokens_per_minute=None,
        cors_origin=None,
        api_key=None,
    )


def import_verb(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        written_flags(parser, form="--form", dest="form")
        parser.add_argument(
            "--append", action="store_true", help="add to the scenario PATH instead of a new one"
        )


def run_import(args: argparse.Namespace) -> int:
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


def recorder_for(args: argparse.Namespace, settings: Settings) -> Recorder | None:
    """The recorder ``serve --record`` / ``record --out`` asks for (``None``: not recording)."""
    path = getattr(args, "out", None) or getattr(args, "record", None)
    if path is None:
        return None
    if args.scenario:
        raise MockServerError("--scenario and --record: the recorded file is the scenario")
    from mockserver.record.recorder import Recorder, Recording
    from mockserver.record.sigv4 import aws_credentials

    return Recorder(
        Recording(
            Path(path),
            upstream=args.upstream or settings.upstream_url,
            api_key=settings.upstream_key,
            aws=aws_credentials(os.environ),
            mode=args.record_mode,
            form=args.record_form,
            redact=tuple(args.redact),
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
        )
    )


def recording_banner(recorder: Recorder, *, url: str) -> list[str]:
    """What ``record`` (and ``serve --record``) says when it listens: where it sends requests,
    where it writes them, in which mode, and how to point a client at it."""
    recording = recorder.recording
    kind = f"(mode {recording.mode}, {recording.form})"
    if recorder.records and recorder.replays:
        doing = (
            f"replaying {recording.path}, proxying the rest to {recording.upstream} and "
            f"writing it there {kind}"
        )
    elif recorder.records:
        doing = f"proxying to {recording.upstream}, writing to {recording.path} {kind}"
    else:
        doing = f"replaying {recording.path} {kind}: nothing is sent upstream"
    key = "your real key (sent upstream, never written)"
    if recording.api_key is not None:
        key = "any key (MOCKSERVER_UPSTREAM_KEY is sent upstream in its place, never written)"
    if not recorder.records:
        key = "any key"
    root = url.removesuffix("/v1")
    lines = [
        f"mockserver listening on {url}",
        f"record: {doing}",
        f"point your app at it: OPENAI_BASE_URL={url}, with {key}",
        f"  (other SDKs: ANTHROPIC_BASE_URL={root}, GOOGLE_GEMINI_BASE_URL={root}, "
        f"AZURE_OPENAI_ENDPOINT={root}, AWS_ENDPOINT_URL_BEDROCK_RUNTIME={root}, "
        f"OLLAMA_HOST={root})",
    ]
    if recorder.records and recording.aws is not None and recording.api_key is None:
        lines.append(
            f"  Bedrock requests are signed again for the upstream with this shell's "
            f"AWS_ACCESS_KEY_ID ({recording.aws.access_key_id[:4]}…)"
        )
    return lines


def check_drift(args: argparse.Namespace) -> int:
    """``record --check PATH``: where the upstream's answers changed shape (exit 1 on drift)."""
    from mockserver.settings import Settings

    settings = Settings.from_env()
    upstream = args.upstream or settings.upstream_url
    if not upstream:
        raise MockServerError("record --check needs --upstream URL to replay against")
    from mockserver.http.drift import check_cassette
    from mockserver.record.sigv4 import aws_credentials

    report = check_cassette(
        Path(args.check),
        upstream=upstream,
        api_key=settings.upstream_key,
        aws=aws_credentials(os.environ),
        connect_timeout=args.connect_timeout,
        read_timeout=args.read_timeout,
    )
    print(report.text(), file=sys.stdout)
    return 1 if report.drifted else 0
