"""A scenario sent to ``PUT /__mockserver/scenario``: read once, off the event loop, bounded.

Reading a scenario is CPU work of its size (YAML, then the models), so it runs in a worker
thread while the server goes on answering; an upload over ``max_scenario_bytes`` is refused
with the API's 413 before any of it, and one that takes longer than ``scenario_seconds`` is a
400 (the reader stops itself at the deadline, where it is; the wait gives up a moment later in
case the reader is inside one long step).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final, NamedTuple

import anyio
import anyio.to_thread

from mockserver.errors import PayloadTooLargeError, ScenarioError
from mockserver.scenario.bounds import Bounds, decode_text
from mockserver.scenario.loader import (
    parse_scenario,
    parse_upload,
    scenario_from_data,
    scenario_to_yaml,
)
from mockserver.scenario.model import Scenario
from mockserver.settings import Settings

__all__ = ["SOURCE", "Upload", "read_upload"]

SOURCE: Final = "<PUT body>"
#: How much longer than its deadline the wait for a reader lasts.
_GRACE: Final = 0.5


def _too_large(size: int, limit: int) -> PayloadTooLargeError:
    return PayloadTooLargeError(
        f"The scenario is {size} bytes; the most one upload may hold is {limit} bytes "
        "(MOCKSERVER_MAX_SCENARIO_BYTES). Load a larger one with serve --scenario.",
        code="request_too_large",
    )


class Upload(NamedTuple):
    """What an upload holds: a scenario and its YAML (the answer shows it; written here, off
    the event loop), or the name of a scenario to switch to."""

    scenario: Scenario | None
    yaml: str | None = None
    name: str | None = None


def _read(
    raw: bytes, media: str, bounds: Bounds, parse_json: Callable[[bytes], dict[str, Any]]
) -> Upload:
    found = _found(raw, media, bounds, parse_json)
    if isinstance(found, str):
        return Upload(None, name=found)
    return Upload(found, scenario_to_yaml(found))


def _found(
    raw: bytes, media: str, bounds: Bounds, parse_json: Callable[[bytes], dict[str, Any]]
) -> Scenario | str:
    if "json" not in media:  # YAML, text, or no type given (curl's -d says form data)
        return parse_upload(decode_text(raw, source=SOURCE), bounds=bounds, source=SOURCE)
    body = parse_json(raw)
    if isinstance(body.get("name"), str) and set(body) == {"name"}:
        return str(body["name"])
    if isinstance(body.get("yaml"), str):
        return parse_scenario(body["yaml"], source=SOURCE, confined=True, bounds=bounds)
    data = body.get("scenario", body)
    return scenario_from_data(data, source=SOURCE, confined=True, bounds=bounds)


async def read_upload(
    raw: bytes,
    *,
    media: str,
    settings: Settings,
    parse_json: Callable[[bytes], dict[str, Any]],
) -> Upload:
    """The scenario an upload holds, or the name of the one it asks for (``{"name": …}``,
    ``name: …``); ``parse_json`` reads a JSON body (its errors are the API's 400)."""
    if len(raw) > settings.max_scenario_bytes:
        raise _too_large(len(raw), settings.max_scenario_bytes)
    bounds = Bounds(max_bytes=settings.max_scenario_bytes, seconds=settings.scenario_seconds)
    work = partial(_read, raw, media, bounds, parse_json)
    try:
        with anyio.fail_after(settings.scenario_seconds + _GRACE):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except TimeoutError:
        raise ScenarioError(
            f"checking the scenario took longer than {settings.scenario_seconds:g} s, the limit "
            "of one upload (MOCKSERVER_SCENARIO_SECONDS); send a smaller scenario, or load it "
            "with serve --scenario",
            file=SOURCE,
        ) from None
