"""Nothing secret is kept: credential headers and cookies dropped (masked in the journal),
secrets masked in text."""

from __future__ import annotations

from mockserver.credentials import MASK, credentials_in, journaled_headers
from mockserver.record.exchange import Event, Exchange
from mockserver.record.redact import Redactor, kept_response


def test_credentials_and_cookies_are_never_kept() -> None:
    kept = kept_response(
        [
            ("Set-Cookie", "__cf_bm=1"),
            ("OpenAI-Organization", "org-1"),
            ("openai-processing-ms", "12"),
            ("x-ratelimit-remaining-tokens", "10"),
            ("server", "cloudflare"),
        ]
    )
    assert kept == {"openai-processing-ms": "12", "x-ratelimit-remaining-tokens": "10"}


def test_the_bearer_token_seen_is_masked_wherever_it_is_echoed() -> None:
    secrets = credentials_in([("Authorization", "Bearer sk-proj-abcdefgh1234")])
    redactor = Redactor((r"acct-\d+",)).with_secrets(secrets)
    exchange = Exchange(
        method="POST",
        path="/v1/chat/completions",
        status=401,
        request={"messages": [{"content": "acct-42 please"}]},
        body={"error": {"message": "Incorrect API key provided: sk-proj-abcdefgh1234"}},
        body_text='{"error": {"message": "Incorrect API key provided: sk-proj-abcdefgh1234"}}',
        events=(Event(0, '{"x": "acct-7"}'),),
    )
    masked = redactor.exchange(exchange)
    assert masked.request == {"messages": [{"content": f"{MASK} please"}]}
    assert masked.body == {"error": {"message": f"Incorrect API key provided: {MASK}"}}
    assert "sk-proj" not in (masked.body_text or "")
    assert masked.events == (Event(0, f'{{"x": "{MASK}"}}'),)


def test_a_short_credential_does_not_mask_ordinary_words() -> None:
    assert Redactor().with_secrets(["sk"]).text("a task") == "a task"


def test_the_journal_keeps_every_header_with_each_credential_masked_wherever_it_is() -> None:
    kept = journaled_headers(
        [
            ("Authorization", "Bearer sk-proj-abcdefgh1234"),
            ("X-Api-Key", "ant-key-abcdefgh"),
            ("Cookie", "session=1"),
            ("User-Agent", "OpenAI/Python 3.0.0"),
            ("X-Echo", "sent sk-proj-abcdefgh1234 and ant-key-abcdefgh"),
        ]
    )
    assert kept == {
        "authorization": MASK,
        "x-api-key": MASK,
        "cookie": MASK,
        "user-agent": "OpenAI/Python 3.0.0",
        "x-echo": f"sent {MASK} and {MASK}",
    }
    assert journaled_headers([("content-type", "application/json")]) == {
        "content-type": "application/json"
    }
    # Names in any case, some lower-case already: each secret found all the same.
    mixed = journaled_headers([("authorization", "Bearer sk-abcdefgh1"), ("X-Api-Key", "k")])
    assert mixed == {"authorization": MASK, "x-api-key": MASK}
