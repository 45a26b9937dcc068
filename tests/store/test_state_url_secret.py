"""A password in ``--state`` (``redis://USER:PW@…``, ``?password=PW``) reaches Redis and nothing
else: the start-up banner, start-up errors, the log and the 503 a client gets show ``***``."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from mockserver.errors import ServiceUnavailableError, SettingsError
from mockserver.settings import Settings, shown_state_url
from mockserver.store import operations
from mockserver.store.redis import RedisStore
from tests.support.fleet import Serve
from tests.support.redis_server import RedisServer

PASSWORD = "hunter2-Zq9"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:hunter2-Zq9@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("redis://app:hunter2-Zq9@redis.internal:6379/2", "redis://app:***@redis.internal:6379/2"),
        ("rediss://app:hunter2%40Zq9@redis.internal/0", "rediss://app:***@redis.internal/0"),
        ("redis://app:pa:ss@h/0", "redis://app:***@h/0"),
        (
            "unix:///run/redis.sock?db=1&password=hunter2-Zq9",
            "unix:///run/redis.sock?db=1&password=***",
        ),
        ("unix:///run/redis.sock?db=1", "unix:///run/redis.sock?db=1"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis://app@h/0", "redis://app@h/0"),  # a user name alone is no secret
        ("redis://[::1:hunter2-Zq9/0", "redis://…"),  # unreadable: only its scheme
    ],
)
def test_a_state_urls_password_is_shown_as_stars(url: str, shown: str) -> None:
    assert shown_state_url(url) == shown


def test_a_state_url_of_another_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings(state_url=f"http://app:{PASSWORD}@127.0.0.1:6379")
    assert "http://app:***@127.0.0.1:6379" in str(refused.value)
    assert PASSWORD not in str(refused.value)


def test_a_redis_that_does_not_answer_is_named_without_the_password() -> None:
    store = RedisStore(f"redis://:{PASSWORD}@127.0.0.1:1/0", timeout=0.2)
    with pytest.raises(SettingsError) as refused:
        store.check()
    assert "--state redis://:***@127.0.0.1:1/0: Redis does not answer" in str(refused.value)
    assert PASSWORD not in str(refused.value)


@pytest.fixture
def user_url(redis_server: RedisServer) -> Iterator[str]:
    """The test Redis, as a user of its own whose password is :data:`PASSWORD`."""
    admin = redis_server.client()
    user = f"secret{RedisServer.new_prefix()}"
    admin.acl_setuser(
        user, enabled=True, passwords=[f"+{PASSWORD}"], keys=["*"], commands=["+@all"]
    )
    try:
        yield redis_server.url.replace("redis://", f"redis://{user}:{PASSWORD}@")
    finally:
        admin.acl_deluser(user)
        admin.close()


def test_a_lost_redis_is_a_503_and_a_log_line_without_the_password(
    redis_server: RedisServer, user_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisStore(user_url, prefix=RedisServer.new_prefix(), timeout=0.3)
    try:
        store.check()  # the password reached Redis: this user is let in
        operations.set_seed(store, "sk-a", 1)
        redis_server.pause()
        try:
            with caplog.at_level(logging.WARNING), pytest.raises(ServiceUnavailableError) as lost:
                store.transact("sk-a", lambda space: None)
        finally:
            redis_server.resume()
    finally:
        store.close()
    assert lost.value.status == 503
    assert ":***@127.0.0.1:" in lost.value.message
    assert PASSWORD not in lost.value.message
    assert "lost the state backend" in caplog.text
    assert PASSWORD not in caplog.text


def test_the_serve_banner_shows_the_state_url_without_the_password(
    redis_server: RedisServer, user_url: str
) -> None:
    serve = Serve(["--state", user_url, "--state-prefix", RedisServer.new_prefix()])
    serve.launch()
    try:
        serve.wait_ready()  # the first line of the banner; the state's comes after it
        deadline = time.monotonic() + 20
        while not any(line.startswith("Ctrl-C to stop.") for line in serve.output):
            assert time.monotonic() < deadline, serve.output
            time.sleep(0.02)
    finally:
        serve.stop()
    printed = "".join(serve.output)
    assert f"state: {shown_state_url(user_url)} (prefix" in printed
    assert ":***@127.0.0.1:" in printed
    assert PASSWORD not in printed


def test_a_wrong_password_is_a_refused_login_not_a_redis_that_does_not_answer(
    user_url: str,
) -> None:
    wrong = user_url.replace(f":{PASSWORD}@", ":not-it@")
    store = RedisStore(wrong, timeout=2)
    try:
        with pytest.raises(SettingsError) as refused:
            store.check()
    finally:
        store.close()
    message = str(refused.value)
    assert ":***@127.0.0.1:" in message
    assert "Redis refused the login (" in message
    assert "redis://USER:PASSWORD@" in message
    assert "does not answer" not in message
    assert "not-it" not in message
