"""Request bodies → validated wire models, rejected with OpenAI's own 400 messages.

API-neutral: Chat Completions uses it now, the Responses API will later. The translation of a
pydantic ``ValidationError`` (in ``validation_errors``) is exact only if models follow these
conventions:

* Models derive from :class:`WireModel` (strict: ``"0.5"`` is not a number, ``1`` is not a
  boolean; unknown nested keys are ignored). A request's top-level model sets ``extra="allow"``.
* Bounds are floats on "number" fields (``le=2.0``) and ints on "integer" fields: the bound's
  type picks the ``decimal_*`` or ``integer_*`` code and wording.
* A union of JSON types (string or array, string or object) dispatches with
  :func:`json_type_union`, so a site reports one error, not one per branch.
* A union of objects uses ``Discriminator("<field>")``; the member order is the order of the
  "Supported values are: ..." list.
* An optional field the spec does not mark nullable is wrapped in :func:`non_nullable`.

Plain (smart) unions still work: of the errors pydantic reports per branch, the branch that
took the input's type wins, and if none did the expected types are merged ("one of ...").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, ValidationError
from pydantic_core import PydanticCustomError

from mockserver.errors import InvalidRequestError
from mockserver.wire.json_body import (
    JSON_PARSE_ERROR,
    json_type,
    json_type_phrase,
    parse_json_body,
    render_param,
)

__all__ = [
    "JSON_PARSE_ERROR",
    "METADATA_KEY_MAX",
    "NULL_ERROR",
    "UNION_TYPE_ERROR",
    "OmittableBool",
    "OmittableStr",
    "WireModel",
    "check_metadata_keys",
    "json_type",
    "json_type_phrase",
    "json_type_union",
    "non_nullable",
    "parse_json_body",
    "render_param",
    "translate_validation_error",
    "validate_model",
]

M = TypeVar("M", bound=BaseModel)

#: Error type of :func:`~mockserver.wire.validation.json_type_union` when no branch fits.
UNION_TYPE_ERROR: Final = "json_type_mismatch"
#: Error type of :func:`~mockserver.wire.validation.non_nullable` for an explicit ``null``.
NULL_ERROR: Final = "null_not_allowed"


class WireModel(BaseModel):
    """Base of every request model: strict types, unknown keys ignored, immutable."""

    # Schemas are built on first validation: a nested model is then built once, inside the
    # request model that uses it, and families never requested are never built.
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, defer_build=True)


def json_type_union(expected: str) -> Discriminator:
    """Dispatch a union on the input's JSON type; branches are tagged ``Tag("string")`` etc.

    ``expected`` completes "expected ..., but got ..." when no branch takes the input, e.g.
    ``"one of a string or array of objects"``.
    """
    return Discriminator(
        json_type, custom_error_type=UNION_TYPE_ERROR, custom_error_message=expected
    )


def non_nullable(expected: str) -> BeforeValidator:
    """Mark an optional (``X | None = None``) field whose explicit ``null`` the API rejects.

    ``expected`` is the type in "expected a string, but got null instead".
    """

    def reject_null(value: Any) -> Any:
        if value is None:
            raise PydanticCustomError(NULL_ERROR, expected)
        return value

    return BeforeValidator(reject_null)


#: An optional string (or boolean) field: may be left out, but not sent as ``null``.
OmittableStr = Annotated[str | None, non_nullable("a string")]
OmittableBool = Annotated[bool | None, non_nullable("a boolean")]


#: The longest metadata key the API takes (on every endpoint that has metadata).
METADATA_KEY_MAX: Final = 64


def check_metadata_keys(metadata: Mapping[str, Any] | None) -> None:
    """The API's 400 for a metadata key over :data:`METADATA_KEY_MAX` characters."""
    for key in metadata or {}:
        if len(key) > METADATA_KEY_MAX:
            raise InvalidRequestError(
                f"Invalid 'metadata': key too long. Expected a key with maximum length "
                f"{METADATA_KEY_MAX}, but got a key with length {len(key)} instead.",
                param="metadata",
                code="string_above_max_length",
            )


def validate_model(model: type[M], data: Mapping[str, Any]) -> M:
    """``model`` validated from ``data``; any failure is an :class:`InvalidRequestError`."""
    payload = dict(data) if isinstance(data, Mapping) and not isinstance(data, dict) else data
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        raise translate_validation_error(exc, payload) from exc


def translate_validation_error(exc: ValidationError, data: object) -> InvalidRequestError:
    """The first meaningful error of ``exc`` in OpenAI's words, located in ``data``."""
    # Imported here: only a rejected request needs the translation tables.
    from mockserver.wire.validation_errors import issue_to_error
    from mockserver.wire.validation_issues import choose_issue

    # A bug here is loud (a logged 500 that fails the pytest plugin's test), not a vague 400.
    return issue_to_error(choose_issue(exc.errors(include_url=False), data))
