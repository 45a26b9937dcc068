"""One mockserver per test session (per xdist worker): the engine, the app and, on first
need, a real uvicorn server on a loopback port.

Tests talk to the engine in-process; only HTTP clients need the socket, so a suite that uses
in-process clients never opens one.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mockserver.engine import Engine
from mockserver.errors import ScenarioError
from mockserver.guess import did_you_mean
from mockserver.scenario.library import builtin, builtin_names, load_ref
from mockserver.scenario.loader import SUFFIXES, load_file, parse_scenario, scenario_from_data
from mockserver.scenario.model import Scenario
from mockserver.scenario.records import Record, materialize
from mockserver.settings import Settings
from pytest_mockserver.options import ScenarioDirs

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal
    from starlette.applications import Starlette

    from mockserver.http.server import BackgroundServer
    from mockserver.record.recorder import Recorders

__all__ = ["MockServerSession", "ScenarioRef"]

#: What ``use()`` and the marker's ``scenario=`` take.
ScenarioRef = Scenario | Mapping[str, Any] | str | os.PathLike[str]

START_TIMEOUT = 10.0


class MockServerSession:
    """The session's server. Everything is built on first use, and kept until :meth:`close`."""

    def __init__(
        self,
        *,
        seed: int = 0,
        scenario_dirs: Sequence[Path] = (),
        in_process: bool = False,
        start_timeout: float = START_TIMEOUT,
        port: int = 0,
        sock: socket.socket | None = None,
        recorders: Recorders | None = None,
    ) -> None:
        self.seed = seed
        #: Where the socket server listens: a port (0: any free one), or a socket bound earlier.
        self._port = port
        self._sock = sock
        #: Cassettes being recorded, by namespace (set when the record mode may record).
        self.recorders = recorders
        self.scenario_dirs = tuple(scenario_dirs)
        #: Where the directories were given, as messages name it.
        self.scenarios_from = (
            scenario_dirs.source if isinstance(scenario_dirs, ScenarioDirs) else "scenario_dirs"
        )
        #: The names of the scenarios the directories hold (set when the engine is built).
        self._dir_names: list[str] = []
        #: Whether ``client()`` and ``async_client()`` skip the socket by default.
        self.in_process = in_process
        self._start_timeout = start_timeout
        self._engine: Engine | None = None
        self._app: Starlette | None = None
        self._server: BackgroundServer | None = None
        self._failure: str | None = None
        self._portal: BlockingPortal | None = None
        self._resources = ExitStack()
        self._keys: Counter[str] = Counter()
        self._files: dict[Path, tuple[int, Scenario]] = {}
        self._texts: dict[str, Scenario] = {}

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            settings = Settings(seed=self.seed, clock="frozen", port=0, log_level="warning")
            engine = Engine(settings, scenarios=[])
            loaded = [s for d in self.scenario_dirs for s in _load_dir(d)]
            if loaded:
                engine.replace_scenarios([materialize(builtin("default")), *loaded])
            self._dir_names = sorted({s.name for s in loaded})
            self._engine = engine
        return self._engine

    #: Whether the server is a ``mockserver serve`` elsewhere (``--mockserver-url``).
    remote = False

    @property
    def engine_ready(self) -> bool:
        return self._engine is not None

    @property
    def started(self) -> bool:
        """Whether the socket server is running (in-process clients never start it)."""
        return self._server is not None

    @property
    def app(self) -> Starlette:
        if self._app is None:
            from mockserver.http.app import create_app

            self._app = create_app(
                self.engine.settings, engine=self.engine, recorder=self.recorders
            )
        return self._app

    def server(self) -> BackgroundServer:
        """The running server, started on first call (a failed start is remembered)."""
        if self._failure is not None:
            raise RuntimeError(self._failure)
        if self._server is None:
            from mockserver.errors import ServerStartError
            from mockserver.http.server import BackgroundServer

            sock, self._sock = self._sock, None
            try:
                server = BackgroundServer(
                    self.app, startup_timeout=self._start_timeout, port=self._port, sock=sock
                )
            except ServerStartError as exc:  # the port is taken
                self._failure = f"mockserver could not start: {exc}"
                raise RuntimeError(self._failure) from None
            try:
                self._server = server.start()
            except ServerStartError as exc:
                server.stop()
                self._failure = f"mockserver could not start: {exc}"
                raise RuntimeError(self._failure) from None
            self._resources.callback(self._server.stop)
        if self._server.crash is not None:
            self._failure = f"mockserver's server thread died: {self._server.crash!r}"
            raise RuntimeError(self._failure)
        return self._server

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (starts the server)."""
        return self.server().url

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:<port>/v1`` (starts the server)."""
        return self.server().base_url

    def portal(self) -> BlockingPortal:
        """An event loop on a thread of its own, for in-process sync clients."""
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal

            self._portal = self._resources.enter_context(start_blocking_portal())
        return self._portal

    def close(self) -> None:
        if self._sock is not None:  # reserved, never served
            self._sock.close()
            self._sock = None
        self._resources.close()
        self._server = self._portal = None

    def new_key(self, nodeid: str) -> str:
        """An API key (so a namespace) for one test: stable across runs and test order."""
        digest = hashlib.blake2b(nodeid.encode(), digest_size=5).hexdigest()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.rpartition("::")[2])[:40]
        self._keys[nodeid] += 1
        again = self._keys[nodeid] - 1
        return f"sk-mock-{name}-{digest}" + (f"-{again}" if again else "")

    def resolve(self, ref: ScenarioRef, *, near: Path | None = None) -> Scenario:
        """A Scenario from a Scenario, a mapping, YAML text, a file path or a scenario name.

        A relative path is tried from the working directory, then from ``near`` (the test
        file's directory). A name is one of ``--mockserver-scenarios`` or a built-in.
        """
        if isinstance(ref, Scenario):
            return ref
        if isinstance(ref, Record):  # a built-in as the server keeps it (engine.find_scenario)
            scenario: Scenario = materialize(ref)
            return scenario
        if isinstance(ref, Mapping):
            return scenario_from_data(ref)
        if isinstance(ref, str) and "\n" in ref:
            return self._parse(ref)
        if isinstance(ref, os.PathLike) or ref.endswith(SUFFIXES) or "/" in ref or os.sep in ref:
            return self._load(Path(ref), near=near)
        return self._named(ref)

    def _parse(self, text: str) -> Scenario:
        scenario = self._texts.get(text)
        if scenario is None:
            scenario = self._texts[text] = parse_scenario(text, source="<scenario text>")
        return scenario

    def _load(self, path: Path, *, near: Path | None) -> Scenario:
        candidates = [path] if path.is_absolute() or near is None else [path, near / path]
        found = next((p.resolve() for p in candidates if p.is_file()), None)
        if found is None:
            tried = ", ".join(str(p) for p in candidates)
            raise ScenarioError(f"no such scenario file (tried {tried})", file=str(path))
        stamp = found.stat().st_mtime_ns
        cached = self._files.get(found)
        if cached is None or cached[0] != stamp:
            cached = self._files[found] = (stamp, load_file(found))
        return cached[1]

    def _named(self, name: str) -> Scenario:
        library = self.engine.library
        if name in library:
            return library[name]
        if name in builtin_names():
            return self.resolve(builtin(name))  # a model for the test, not the server's record
        known = [*library, *self._dir_names, *builtin_names()]
        raise ScenarioError(
            f"no scenario named {name!r}{did_you_mean(name, known)} ({self._known_names()})"
        )

    def _known_names(self) -> str:
        builtins = f"built-in: {', '.join(builtin_names())}"
        if not self.scenario_dirs:
            return (
                f"{builtins}; no scenario directory is set "
                "(--mockserver-scenarios DIR or ini mockserver_scenarios)"
            )
        return f"from {self.scenarios_from}: {', '.join(self._dir_names)}; {builtins}"


def _load_dir(directory: Path) -> list[Scenario]:
    if not directory.exists():
        raise ScenarioError("no such directory", file=str(directory))
    return load_ref(str(directory))
