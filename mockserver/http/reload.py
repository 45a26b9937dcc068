"""``serve --watch``: reload changed scenario files; a broken edit keeps the last good version."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from mockserver.engine import Engine
from mockserver.errors import ScenarioError
from mockserver.scenario.library import load_ref
from mockserver.scenario.loader import SUFFIXES

__all__ = ["ScenarioWatcher"]

log = logging.getLogger("mockserver")


class ScenarioWatcher:
    """Polls the ``--scenario`` path's files (no extra dependency, works on every platform)."""

    def __init__(
        self, engine: Engine, ref: str, *, interval: float = 0.5, reports: bool = True
    ) -> None:
        self.engine = engine
        self.ref = ref
        self.interval = interval
        #: Log what a check did (else only at debug level): of several workers, each watching
        #: for its own engine, one says it, so that a save is said once.
        self.level = (logging.ERROR, logging.INFO) if reports else (logging.DEBUG, logging.DEBUG)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="mockserver-watch", daemon=True)
        self._seen = self._stamps()

    def _files(self) -> list[Path]:
        path = Path(self.ref)
        if path.is_dir():
            return sorted(p for p in path.iterdir() if p.suffix in SUFFIXES)
        return [path] if path.exists() else []

    def _stamps(self) -> dict[Path, float]:
        stamps = {}
        for path in self._files():
            try:
                stamps[path] = path.stat().st_mtime
            except OSError:
                continue
        return stamps

    def check(self) -> bool:
        """Reload if anything changed; ``True`` when the engine now serves a new version."""
        stamps = self._stamps()
        if stamps == self._seen:
            return False
        self._seen = stamps
        try:
            scenarios = load_ref(self.ref)
        except ScenarioError as exc:
            failed, _ = self.level
            log.log(failed, "scenario not reloaded, still serving the previous version:\n%s", exc)
            return False
        self.engine.replace_scenarios(scenarios)
        log.log(self.level[1], "reloaded %s", ", ".join(s.name for s in scenarios))
        return True

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # a bug of ours must not stop every later reload
                log.exception("scenario not reloaded, still serving the previous version")

    def start(self) -> ScenarioWatcher:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
