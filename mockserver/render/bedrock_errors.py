"""An :class:`~mockserver.errors.APIError` as Bedrock Runtime writes it: the status its
exception is modeled with (botocore's ``service-2.json``), the exception's name in the
``x-amzn-ErrorType`` header (with the service's namespace after a colon, as AWS sends it;
botocore keeps what comes before), and the body ``{"message": …}``. A failure after a
stream's 200 is the same exception as a stream member (``throttlingException``…), an
``exception`` message of the event stream. The ``bedrock`` shape of the one dispatch
(``render/errors.py``) writes its errors with :func:`bedrock_error`.
"""

from __future__ import annotations

from typing import Final

from mockserver.errors import APIError
from mockserver.values import Json

__all__ = ["BEDROCK_PRESETS", "bedrock_error", "exception_name", "stream_exception"]

#: What follows the exception's name in ``x-amzn-ErrorType``.
_NAMESPACE: Final = ":http://internal.amazon.com/coral/com.amazon.bedrock/"
#: The exceptions by status (the operations' modeled errors), for an error no preset names.
_BY_STATUS: Final = {
    400: "ValidationException",
    401: "AccessDeniedException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
#: The exceptions a stream may end with (its union's members), by exception name.
_STREAM_MEMBERS: Final = {
    "InternalServerException": "internalServerException",
    "ModelStreamErrorException": "modelStreamErrorException",
    "ValidationException": "validationException",
    "ThrottlingException": "throttlingException",
    "ModelTimeoutException": "modelTimeoutException",
    "ServiceUnavailableException": "serviceUnavailableException",
}
_THROTTLED: Final = "Too many requests, please wait before trying again."
#: A body that is not JSON, in the words Bedrock refuses a malformed model body with.
_MALFORMED: Final = "Malformed input request, please reformat your input and try again."

#: The scenario presets as Bedrock says them: ``(status, exception, message)``.
BEDROCK_PRESETS: Final = {
    "rate_limited": (429, "ThrottlingException", _THROTTLED),
    "insufficient_quota": (
        429,
        "ThrottlingException",
        "Too many tokens per day, please wait before trying again.",
    ),
    "overloaded": (
        503,
        "ServiceUnavailableException",
        "Bedrock is unable to process your request.",
    ),
    "invalid_api_key": (
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    ),
    "permission_denied": (
        403,
        "AccessDeniedException",
        "You don't have access to the model with the specified model ID.",
    ),
    "model_not_found": (400, "ValidationException", "The provided model identifier is invalid."),
    "server_error": (
        500,
        "InternalServerException",
        "The system encountered an unexpected error during processing. Try your request again.",
    ),
    "bad_gateway": (
        424,
        "ModelErrorException",
        "The model returned an error. Try your request again.",
    ),
    "gateway_timeout": (
        408,
        "ModelTimeoutException",
        "Model has timed out in processing the request. Try your request again.",
    ),
}


def exception_name(error: APIError) -> tuple[int, str, str]:
    """``(status, exception, message)`` Bedrock answers ``error`` with: a preset's own (unless
    the scenario gave its own status or message), an exception the scenario named as its
    ``type`` (``ModelNotReadyException``), the rate-limit arithmetic's, else the status's."""
    status, message = error.status, error.message
    words = BEDROCK_PRESETS.get(error.preset or "")
    name = None
    if words is not None:
        status, message = error.worded(words[0], words[2])
        name = words[1]
    if error.type.endswith("Exception"):
        name = error.type
    if isinstance(error.facts.get("rate_limit"), int):
        name, message = "ThrottlingException", _THROTTLED
    if "invalid_json" in error.facts:  # not OpenAI's sentence about its help center
        message = _MALFORMED
    if name is None:
        name = _BY_STATUS.get(status) or (
            "InternalServerException" if status >= 500 else "ValidationException"
        )
    return status, name, message


def bedrock_error(error: APIError) -> tuple[int, Json, dict[str, str]]:
    """The status, body and headers of ``error`` as Bedrock answers it (no ``Retry-After``:
    Bedrock sends none; botocore backs off by its own policy)."""
    status, name, message = exception_name(error)
    headers = {
        k: v for k, v in error.headers.items() if not k.startswith(("retry-after", "x-ratelimit-"))
    }
    headers["x-amzn-errortype"] = name + _NAMESPACE
    return status, {"message": message}, headers


def stream_exception(error: APIError) -> tuple[str, Json]:
    """The stream member and payload that end a stream with ``error`` after its 200 (an
    exception no stream can carry is a ``modelStreamErrorException``, as a model's failure
    mid-stream is)."""
    status, name, message = exception_name(error)
    member = _STREAM_MEMBERS.get(name)
    if member is None:
        return "modelStreamErrorException", {
            "message": message,
            "originalStatusCode": status,
            "originalMessage": message,
        }
    return member, {"message": message}
