"""``mockserver <verb>``: serve (more verbs arrive with the scenario tooling)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mockserver.errors import MockServerError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mockserver",
        description="A deterministic fake of the OpenAI Chat Completions and Responses APIs.",
    )
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
    serve.add_argument("--log-level", choices=["critical", "error", "warning", "info", "debug"])
    return parser


def _serve(args: argparse.Namespace) -> int:
    from mockserver.app import create_app
    from mockserver.server import bind, serve
    from mockserver.settings import Settings

    settings = Settings.from_env(
        host=args.host, port=args.port, seed=args.seed, clock=args.clock, log_level=args.log_level
    )
    sock = bind(settings.host, settings.port)
    settings = settings.model_copy(update={"port": sock.getsockname()[1]})
    app = create_app(settings)

    def ready() -> None:
        url = settings.base_url
        print(f"mockserver listening on {url}  (seed {settings.seed}, clock {settings.clock})")
        print(
            f"try: curl -s {url}/chat/completions -H 'Content-Type: application/json' "
            "-H 'Authorization: Bearer sk-mock' "
            """-d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'"""
        )
        print("Ctrl-C to stop.", flush=True)

    serve(app, sock, log_level=settings.log_level, on_ready=ready)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.verb == "serve":
            return _serve(args)
    except MockServerError as exc:
        print(f"mockserver: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 2
