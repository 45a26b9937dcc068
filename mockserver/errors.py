"""The one exception tree.

::

    MockServerError                  anything mockserver itself raises
    ├── APIError                     answered in its API family's error shape (OpenAI's:
    │   │                            {"error": {message, type, param, code}})
    │   ├── InvalidRequestError      400 (NoMatchError: strict mode, no rule matched)
    │   ├── AuthenticationError      401
    │   ├── PermissionDeniedError    403
    │   ├── NotFoundError            404
    │   ├── MethodNotAllowedError    405
    │   ├── ConflictError            409
    │   ├── PayloadTooLargeError     413
    │   ├── UnsupportedMediaTypeError 415
    │   ├── UnprocessableEntityError 422
    │   ├── RateLimitError           429
    │   ├── InternalServerError      500
    │   ├── ServiceUnavailableError  503
    │   ├── GatewayError             a provider's gateway refusing a request before its API
    │   │                            sees it, in the gateway's {"error": {code, message}}
    │   │                            (Azure OpenAI: a path without api-version, a wrong key)
    │   └── RecordedAnswer           a recorded upstream answer, replayed as it was (status,
    │                                headers, bytes): an APIError only to travel the errors'
    │                                way to the HTTP boundary, which sends it as recorded
    ├── ScenarioError                a scenario that is wrong: file, line, rule, field
    ├── SettingsError                a configuration value that cannot be used (names the setting)
    ├── ServerStartError             the server did not come up (port taken, crash, deadline)
    ├── ReportWriteError             a report file (serve --report) cannot be written
    └── StreamAborted                raised inside an answer to drop the connection on purpose
                                     (a scripted fault: the HTTP layer lets it cut the socket)

Every :class:`APIError` carries the HTTP status, the OpenAI error ``type`` and ``code``; the HTTP
boundary writes it in the shape of the family that was asked (``render/errors.py``: OpenAI's
body as :meth:`APIError.body` gives it, Anthropic's ``{"type": "error", …}`` with its own
statuses and types). Foreign exceptions are
converted once, where they enter (pydantic's in ``wire``, YAML's in ``scenario.loader``); the
generator's own ``ValueError`` signals (an unsatisfiable schema, an unsupported regex) never
leave ``reply``. Nothing here builds HTTP responses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "APIError",
    "AuthenticationError",
    "ConflictError",
    "GatewayError",
    "InternalServerError",
    "InvalidRequestError",
    "MethodNotAllowedError",
    "MockServerError",
    "NoMatchError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RecordedAnswer",
    "ReportWriteError",
    "ScenarioError",
    "ServerStartError",
    "ServiceUnavailableError",
    "SettingsError",
    "StreamAborted",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
]


class MockServerError(Exception):
    """Base of every error raised by mockserver itself."""


class APIError(MockServerError):
    """An error answered to the client in OpenAI's shape."""

    status: int = 500
    type: str = "server_error"
    default_code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
        status: int | None = None,
        type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code if code is not None else self.default_code
        self.headers: dict[str, str] = dict(headers or {})
        self.extra: dict[str, Any] = dict(extra or {})
        if status is not None:
            self.status = status
        if type is not None:
            self.type = type
        #: The named error (``faults.PRESETS``) this is, in its own words: each family writes a
        #: preset in its API's words (``render/errors.py``); ``None``: say ``message``.
        self.preset: str | None = None
        #: For the journal: the scenario rule that produced this error, or why none matched.
        self.rule: str | None = None
        self.miss: str | None = None
        #: The journal entry the engine wrote for this error (a turn that ended in it), so
        #: the HTTP layer does not journal it again.
        self.journaled: Any = None
        #: What a family's wording of it may need besides the message (a rate limit's size
        #: and unit, say).
        self.facts: dict[str, Any] = {}

    def gave(self, field: str) -> bool:
        """Did the scenario give this error's ``field`` (``status``, ``message``, …) itself?
        A family's words for its preset leave such a field as the scenario said it."""
        return field in self.facts.get("given", ())

    def worded(self, status: int, message: str) -> tuple[int, str]:
        """``(status, message)``, a family's words for this error's preset, but for what the
        scenario gave itself."""
        return (
            self.status if self.gave("status") else status,
            self.message if self.gave("message") else message,
        )

    def body(self) -> dict[str, Any]:
        """The JSON body the real API sends for this error."""
        error: dict[str, Any] = {
            "message": self.message,
            "type": self.type,
            "param": self.param,
            "code": self.code,
        }
        error.update(self.extra)
        return {"error": error}


class InvalidRequestError(APIError):
    status = 400
    type = "invalid_request_error"


class AuthenticationError(APIError):
    status = 401
    type = "invalid_request_error"
    default_code = "invalid_api_key"


class PermissionDeniedError(APIError):
    status = 403
    type = "invalid_request_error"


class NotFoundError(APIError):
    status = 404
    type = "invalid_request_error"


class MethodNotAllowedError(APIError):
    status = 405
    type = "invalid_request_error"


class ConflictError(APIError):
    status = 409
    type = "invalid_request_error"


class PayloadTooLargeError(APIError):
    status = 413
    type = "invalid_request_error"


class UnsupportedMediaTypeError(APIError):
    status = 415
    type = "invalid_request_error"


class UnprocessableEntityError(APIError):
    status = 422
    type = "invalid_request_error"


class RateLimitError(APIError):
    status = 429
    type = "rate_limit_error"


class InternalServerError(APIError):
    status = 500
    type = "server_error"


class ServiceUnavailableError(APIError):
    status = 503
    type = "service_unavailable_error"


class GatewayError(APIError):
    """A provider's gateway refusing a request before its API sees it, in the gateway's own
    shape (Azure OpenAI's ``{"error": {"code": "404", "message": "Resource not found"}}``);
    its ``code`` is the status unless given, as the gateway writes it."""

    type = "gateway_error"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code or str(status), headers=headers)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class NoMatchError(InvalidRequestError):
    """Strict mode: no scenario rule matched. A 400, so SDKs do not retry it."""

    default_code = "mockserver_no_match"


class RecordedAnswer(APIError):
    """A recorded answer, replayed as the upstream sent it (record & replay, ``recorded:``).

    Raised by the engine where a scripted ``error`` is, so that every path that answers errors
    (each create endpoint, the lane's hand-over) brings it to the HTTP layer; only its status
    is an error's when the recording's was.
    """

    type = "recorded"

    def __init__(
        self,
        *,
        status: int,
        headers: Mapping[str, str],
        body: str | None = None,
        events: Sequence[tuple[str | None, str]] | None = None,
        complete: bool = True,
        crlf: bool = False,
        waits: Sequence[float] = (),
        delay: float = 0.0,
    ) -> None:
        super().__init__(f"replayed as recorded (status {status})", status=status)
        #: At the recorded pace: seconds before each event (empty: all at once), and before a
        #: body.
        self.waits = tuple(waits)
        self.delay = delay
        self.recorded_headers = dict(headers)
        #: The body's exact text (a non-streamed answer).
        self.recorded_body = body
        #: A stream's events: ``(event name or None, data)``, in order.
        self.events = tuple(events) if events is not None else None
        #: ``False``: the recorded stream was cut; the replay cuts it at the same place.
        self.complete = complete
        #: The stream's lines end in CRLF, as recorded.
        self.crlf = crlf

    def body(self) -> dict[str, Any]:
        """What the journal keeps: the recorded JSON (or, for a stream, its events' data)."""
        import json

        if self.events is not None:
            return {"recorded_events": [data for _, data in self.events]}
        try:
            value = json.loads(self.recorded_body or "null")
        except ValueError:
            return {"recorded_body": self.recorded_body}
        return value if isinstance(value, dict) else {"recorded_body": value}


class ScenarioError(MockServerError):
    """A scenario that cannot be loaded, located as precisely as we know."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        rule: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.rule = rule
        self.field = field
        #: Further problems found in the same pass (``mockserver validate`` lists them all).
        self.more: list[ScenarioError] = []
        super().__init__(self.located())

    def __str__(self) -> str:
        return "\n".join(e.located() for e in [self, *self.more])

    def located(self) -> str:
        """``file:line:col: rule 'x', field 'a.b': message`` with whatever parts are known."""
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        parts = []
        if self.rule is not None:
            parts.append(
                f"rule {self.rule}" if self.rule.startswith("#") else f"rule '{self.rule}'"
            )
        if self.field:
            parts.append(f"field '{self.field}'")
        context = (", ".join(parts) + ": ") if parts else ""
        return f"{where}{context}{self.message}"


class SettingsError(MockServerError):
    """A configuration value that cannot be used."""

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        super().__init__(message)
        #: The setting at fault, if one is.
        self.setting = setting


class ServerStartError(MockServerError):
    """The server did not come up in time (or crashed while starting)."""


class ReportWriteError(MockServerError):
    """A report file (``serve --report``, ``--report-junit``) cannot be written."""


class StreamAborted(MockServerError):
    """Raised inside a response to drop the connection on purpose (a scripted fault)."""
