"""The Gemini API's request checks: proto names read as camelCase, the API's own 400s."""

from __future__ import annotations

import pytest

from mockserver.errors import APIError
from mockserver.wire.gemini import check_generate_body
from mockserver.wire.gemini_json import camel_body
from mockserver.wire.gemini_signatures import check_signatures

TEXT = {"role": "user", "parts": [{"text": "hi"}]}


def test_proto_names_become_camel_case_but_free_values_stay_as_sent() -> None:
    body = {
        "generation_config": {"max_output_tokens": 5, "response_json_schema": {"a_b": 1}},
        "contents": [{"parts": [{"function_call": {"name": "f", "args": {"snake_key": 1}}}]}],
    }
    written = camel_body(body)
    assert written["generationConfig"] == {"maxOutputTokens": 5, "responseJsonSchema": {"a_b": 1}}
    assert written["contents"][0]["parts"][0]["functionCall"]["args"] == {"snake_key": 1}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"contents": []}, "* GenerateContentRequest.contents: contents is not specified\n"),
        ({"contents": [{"role": "bot", "parts": [{"text": "x"}]}]}, "Please use a valid role"),
        (
            {"contents": [TEXT], "generationConfig": {"topQ": 1}},
            "Invalid JSON payload received. Unknown name \"topQ\" at 'generation_config': "
            "Cannot find field.",
        ),
        (
            {"contents": [TEXT], "generationConfig": {"maxOutputTokens": "many"}},
            "Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), \"many\"",
        ),
        (
            {"contents": [TEXT], "generationConfig": {"responseSchema": {"type": "OBJECT"}}},
            "response_mime_type must be set to application/json",
        ),
        (
            {
                "contents": [TEXT],
                "toolConfig": {
                    "functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["f"]}
                },
            },
            "allowed_function_names can only be set when the mode is ANY",
        ),
    ],
)
def test_a_bad_request_is_the_apis_400(body: dict[str, object], message: str) -> None:
    with pytest.raises(APIError) as refused:
        check_generate_body(body)
    assert refused.value.status == 400
    assert message in refused.value.message


def _with_call(*, signed: bool) -> dict[str, object]:
    call: dict[str, object] = {"functionCall": {"name": "get_weather", "args": {}}}
    if signed:
        call["thoughtSignature"] = "c2ln"
    result = {"functionResponse": {"name": "get_weather", "response": {}}}
    return check_generate_body(
        {
            "contents": [
                TEXT,
                {"role": "model", "parts": [call]},
                {"role": "user", "parts": [result]},
            ]
        }
    )


def test_gemini_3_refuses_a_call_of_the_turn_without_its_signature() -> None:
    with pytest.raises(APIError) as refused:
        check_signatures(_with_call(signed=False), model="gemini-3-pro-preview")
    assert "`default_api:get_weather` , position 2." in refused.value.message
    check_signatures(_with_call(signed=True), model="gemini-3-pro-preview")
    check_signatures(_with_call(signed=False), model="gemini-2.5-flash")


def test_a_call_of_an_earlier_turn_needs_no_signature() -> None:
    body = _with_call(signed=False)
    later = {
        **body,
        "contents": [*body["contents"], {"role": "model", "parts": [{"text": "ok"}]}, TEXT],
    }
    check_signatures(later, model="gemini-3-pro-preview")
