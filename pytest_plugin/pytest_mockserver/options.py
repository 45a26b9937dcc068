"""Command-line options, ini keys and the marker: every knob of the plugin, in one place.

Imported when the plugin loads, so it imports nothing beyond pytest and the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest

from mockserver.guess import did_you_mean

__all__ = [
    "MARKER",
    "MarkerError",
    "MarkerOptions",
    "ScenarioDirs",
    "add_options",
    "client_env",
    "in_process",
    "marker_options",
    "network_guard",
    "port",
    "record_mode",
    "resolve_seed",
    "scenario_dirs",
    "url",
    "xdist_controller",
]

MARKER = "mockserver"
MARKER_DOC = (
    "mockserver(scenario=None, seed=None, strict=None, assert_all_used=False, "
    "assert_all_matched=True, allow_network=False, cassette=None): configure the mockserver "
    "fixture for this test"
)
#: Record & replay modes (``--mockserver-record-mode``), as pytest-recording names them.
RECORD_MODES = ("once", "new_episodes", "none", "all")
#: The key under which pytest-xdist's controller hands its seed to the workers.
WORKER_SEED = "mockserver_seed"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockserver", "mockserver (deterministic LLM API fake)")
    group.addoption(
        "--mockserver-seed",
        dest="mockserver_seed",
        metavar="SEED",
        help="seed of generated replies: an integer, or 'random' (default: ini mockserver_seed)",
    )
    group.addoption(
        "--mockserver-scenarios",
        dest="mockserver_scenarios",
        metavar="DIR",
        action="append",
        help="a directory of scenario files that use() and the marker can name (repeatable)",
    )
    group.addoption(
        "--mockserver-in-process",
        dest="mockserver_in_process",
        action="store_true",
        default=None,
        help="clients made by the fixture call the app in-process, without a socket",
    )
    group.addoption(
        "--mockserver-env",
        "--mockserver-openai-env",  # its earlier name
        dest="mockserver_env",
        action="store_true",
        default=None,
        help="point the SDKs' variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, "
        "AZURE_OPENAI_ENDPOINT, AWS_ENDPOINT_URL_BEDROCK_RUNTIME, their keys…) at the session's "
        "mockserver before collection, for clients made at import time (undone at the end)",
    )
    group.addoption(
        "--mockserver-port",
        dest="mockserver_port",
        metavar="PORT",
        type=int,
        help="port of the session's server (default: ini mockserver_port, else any free one; "
        "xdist worker gwN takes PORT+N)",
    )
    group.addoption(
        "--mockserver-url",
        dest="mockserver_url",
        metavar="URL",
        help="run against this already running 'mockserver serve' (its root URL, e.g. "
        "http://127.0.0.1:8000) instead of a server in this process",
    )
    group.addoption(
        "--mockserver-allow-network",
        dest="mockserver_allow_network",
        action="store_true",
        default=None,
        help="let tests that use mockserver connect beyond loopback (the network guard is off)",
    )
    group.addoption(
        "--mockserver-record-mode",
        dest="mockserver_record_mode",
        choices=RECORD_MODES,
        help="cassettes (marker cassette=...): none replays only (default), once records an "
        "absent one, new_episodes records what is not in it, all re-records",
    )
    parser.addini(
        "mockserver_seed", "seed of generated replies: an integer or 'random'", default="0"
    )
    parser.addini(
        "mockserver_env",
        "point the SDKs' base URL and key variables at the session's mockserver",
        type="bool",
        default=False,
    )
    parser.addini(
        "mockserver_openai_env",
        "deprecated: mockserver_env's earlier name",
        type="bool",
        default=False,
    )
    parser.addini("mockserver_port", "port of the session's server (0: any free one)", default="0")
    parser.addini("mockserver_url", "root URL of an already running 'mockserver serve'")
    parser.addini(
        "mockserver_network_guard",
        "fail a test that uses mockserver and connects beyond loopback",
        type="bool",
        default=True,
    )
    parser.addini(
        "mockserver_record_mode",
        "record mode of cassettes: none, once, new_episodes or all",
        default="none",
    )
    parser.addini(
        "mockserver_scenarios",
        "directories of scenario files (relative to the ini file)",
        type="paths",
    )
    parser.addini(
        "mockserver_in_process",
        "clients made by the fixture skip the socket",
        type="bool",
        default=False,
    )


def _parse_seed(raw: str, *, source: str) -> int:
    if raw.strip().lower() == "random":
        import secrets

        return secrets.randbelow(2**32)
    try:
        return int(raw)
    except ValueError:
        raise pytest.UsageError(f"{source}: expected an integer or 'random', got {raw!r}") from None


def resolve_seed(config: pytest.Config) -> int:
    """The session's seed: the xdist controller's, else the option's, else the ini's."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_SEED in workerinput:
        return int(workerinput[WORKER_SEED])
    option = config.getoption("mockserver_seed")
    if option is not None:
        return _parse_seed(option, source="--mockserver-seed")
    return _parse_seed(str(config.getini("mockserver_seed")), source="ini mockserver_seed")


class ScenarioDirs(tuple[Path, ...]):
    """The scenario directories, and where they were given (``--mockserver-scenarios``, or
    the ini key in ``pytest.ini``…), for messages that name it."""

    source: str

    def __new__(cls, dirs: Iterable[Path] = (), *, source: str) -> ScenarioDirs:
        made = super().__new__(cls, dirs)
        made.source = source
        return made


def _ini_source(config: pytest.Config) -> str:
    overrides: list[str] = config.getoption("override_ini", None) or []
    if any(o.partition("=")[0].strip() == "mockserver_scenarios" for o in overrides):
        return "-o mockserver_scenarios"
    where = f" in {config.inipath.name}" if config.inipath is not None else ""
    return f"mockserver_scenarios{where}"


def scenario_dirs(config: pytest.Config) -> ScenarioDirs:
    given: list[str] | None = config.getoption("mockserver_scenarios")
    if given:
        return ScenarioDirs((Path(d).resolve() for d in given), source="--mockserver-scenarios")
    paths = config.getini("mockserver_scenarios")
    return ScenarioDirs((Path(p) for p in paths), source=_ini_source(config))


def _opt(config: pytest.Config, name: str) -> Any:
    """An option's value, also before the command line is parsed whole (when the initial
    conftests are loaded, only ``known_args_namespace`` has it)."""
    value = config.getoption(name, None)
    if value is None:
        value = getattr(getattr(config, "known_args_namespace", None), name, None)
    return value


def client_env(config: pytest.Config) -> bool:
    """Set the SDKs' variables for the session (``--mockserver-env``, ini ``mockserver_env``,
    or either's earlier name, ``…openai_env``)?"""
    option: bool | None = _opt(config, "mockserver_env")
    if option is not None:
        return bool(option)
    return bool(config.getini("mockserver_env")) or bool(config.getini("mockserver_openai_env"))


def _worker_index() -> int:
    """``N`` of xdist worker ``gwN`` (0 outside xdist)."""
    import os

    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


def port(config: pytest.Config) -> int:
    """The session server's port: the option's, else the ini's (0: any free port). Under
    xdist, worker gwN adds N, so that every worker has a server of its own."""
    option: int | None = _opt(config, "mockserver_port")
    if option is not None:
        raw, source = str(option), "--mockserver-port"
    else:
        raw, source = str(config.getini("mockserver_port")), "ini mockserver_port"
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"{source}: expected a port number, got {raw!r}") from None
    if not 0 <= value <= 65535:
        raise pytest.UsageError(f"{source}: expected a port number (0-65535), got {value}")
    return value + _worker_index() if value else 0


def url(config: pytest.Config) -> str | None:
    """The root URL of an external ``mockserver serve`` (``None``: serve in this process)."""
    option: str | None = _opt(config, "mockserver_url")
    raw, source = (
        (option, "--mockserver-url")
        if option is not None
        else (str(config.getini("mockserver_url") or ""), "ini mockserver_url")
    )
    if not raw:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise pytest.UsageError(
            f"{source}: expected the server's root URL, like http://127.0.0.1:8000, got {raw!r}"
        )
    return raw.rstrip("/").removesuffix("/v1")


def network_guard(config: pytest.Config) -> bool:
    option: bool | None = config.getoption("mockserver_allow_network", None)
    if option:
        return False
    return bool(config.getini("mockserver_network_guard"))


def xdist_controller(config: pytest.Config) -> bool:
    """Whether this process hands tests to xdist workers (and so runs none itself)."""
    import os

    if "PYTEST_XDIST_WORKER" in os.environ or hasattr(config, "workerinput"):
        return False
    numprocesses = _opt(config, "numprocesses")
    dist = _opt(config, "dist") or "no"
    return bool(numprocesses) or dist not in ("no", None)


def record_mode(config: pytest.Config) -> str:
    """The cassettes' record mode: the option's, else the ini's (``none`` by default)."""
    option: str | None = config.getoption("mockserver_record_mode")
    mode = option or str(config.getini("mockserver_record_mode"))
    if mode not in RECORD_MODES:
        raise pytest.UsageError(
            f"ini mockserver_record_mode: expected one of {', '.join(RECORD_MODES)}, got {mode!r}"
        )
    return mode


def in_process(config: pytest.Config) -> bool:
    option: bool | None = config.getoption("mockserver_in_process")
    return bool(option) if option is not None else bool(config.getini("mockserver_in_process"))


class MarkerError(Exception):
    """``@pytest.mark.mockserver(...)`` was given arguments it does not take."""


@dataclass(frozen=True, slots=True)
class MarkerOptions:
    """What ``@pytest.mark.mockserver(...)`` says (the defaults when a test has no marker)."""

    #: A Scenario, a file path, YAML text or a scenario name (as ``mockserver.use()`` takes).
    scenario: Any = None
    seed: int | None = None
    #: ``True``: unmatched requests get the strict error; ``False``: a generated reply;
    #: ``None``: as the scenario says.
    strict: bool | None = None
    #: Fail the test if a rule was never used (or a sequence was not played to its end).
    assert_all_used: bool = False
    #: Fail the test if a request matched no rule of a strict scenario.
    assert_all_matched: bool = True
    #: Let the test connect beyond loopback (the network guard is off for it).
    allow_network: bool = False
    #: Replay (or record) this cassette: a name (``cassettes/<module>/<name>.yaml`` beside
    #: the test file), a ``.yaml`` path relative to it, or ``True`` for the test's name.
    cassette: str | bool | None = None


_KEYWORDS = tuple(f.name for f in fields(MarkerOptions))
_TYPES: dict[str, tuple[type, ...]] = {
    "seed": (int,),
    "strict": (bool,),
    "assert_all_used": (bool,),
    "assert_all_matched": (bool,),
    "allow_network": (bool,),
    "cassette": (str, bool),
}


def _check(kwargs: dict[str, Any]) -> None:
    for key, value in kwargs.items():
        if key not in _KEYWORDS:
            hint = did_you_mean(key, _KEYWORDS)
            raise MarkerError(
                f"@pytest.mark.mockserver got an unexpected keyword '{key}'{hint}; "
                f"valid keywords: {', '.join(_KEYWORDS)}"
            )
        types = _TYPES.get(key)
        wrong_bool = key == "seed" and isinstance(value, bool)
        if types is not None and value is not None and (not isinstance(value, types) or wrong_bool):
            raise MarkerError(
                f"@pytest.mark.mockserver({key}=...) takes {types[0].__name__}, got {value!r}"
            )


def marker_options(item: pytest.Item) -> MarkerOptions:
    """The test's marker options; a marker closer to the test overrides a module's or class's."""
    merged: dict[str, Any] = {}
    for mark in reversed(list(item.iter_markers(MARKER))):
        if mark.args:
            raise MarkerError(
                "@pytest.mark.mockserver takes keyword arguments only "
                f"({', '.join(_KEYWORDS)}), got positional {mark.args!r}"
            )
        _check(dict(mark.kwargs))
        merged.update(mark.kwargs)
    return MarkerOptions(**merged)
