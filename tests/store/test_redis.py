"""The Redis backend against a real ``redis-server``: two stores on one prefix stand for two
processes sharing it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

import orjson
import pytest
import redis

from mockserver.errors import ServiceUnavailableError, SettingsError
from mockserver.scenario.model import Reply, Rule, Scenario
from mockserver.store import (
    Exchange,
    JournalEntry,
    Namespace,
    StoredConversation,
    Unparsed,
    operations,
)
from mockserver.store.redis import RedisStore
from tests.support.redis_server import RedisServer, find_redis_server


@pytest.fixture
def pair(redis_server: RedisServer) -> Iterator[tuple[RedisStore, RedisStore]]:
    prefix = RedisServer.new_prefix()
    one, two = (
        RedisStore(redis_server.url, prefix=prefix),
        RedisStore(redis_server.url, prefix=prefix),
    )
    yield one, two
    one.close()
    two.close()


def test_counters_are_exactly_once_across_processes(pair: tuple[RedisStore, RedisStore]) -> None:
    taken: list[int] = []

    def work(store: RedisStore) -> None:
        for _ in range(50):
            taken.append(store.transact("sk-a", lambda space: space.next_counter()))

    threads = [threading.Thread(target=work, args=(store,)) for store in (*pair, *pair)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(1, 201))


def test_a_one_off_reply_is_served_once_whichever_process_takes_it(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    one, two = pair
    operations.queue_replies(one, "sk-a", [Reply(text="only once")])
    assert two.transact("sk-a", lambda space: space.pending.popleft()) == Reply(text="only once")
    assert one.transact("sk-a", lambda space: list(space.pending)) == []


def test_a_stored_object_changed_in_one_process_is_seen_changed_in_another(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    one, two = pair
    conversation = StoredConversation("conv_1", 1, {"k": "v"})
    one.transact("sk-a", lambda space: one.put(space, "conversations", conversation))

    def change(space: Namespace) -> None:
        stored = space.conversations["conv_1"]
        stored.metadata = {"k": "changed"}
        stored.items["msg_1"] = {"id": "msg_1", "type": "message"}

    two.transact("sk-a", change)
    with one.view("sk-a") as space:
        seen = space.conversations.get("conv_1")
        assert seen is not None
        assert seen.metadata == {"k": "changed"}
        assert list(seen.items) == ["msg_1"]
    one.transact("sk-a", lambda space: space.conversations.__delitem__("conv_1"))
    with two.view("sk-a") as space:
        assert "conv_1" not in space.conversations
        assert list(space.conversations.values()) == []


def test_an_uploaded_scenario_reaches_another_process_by_its_source(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    one, two = pair
    scenario = Scenario(name="uploaded", rules=[Rule(id="hi", reply=Reply(text="hello"))])
    operations.switch_scenario(one, "sk-a", scenario)
    with two.view("sk-a") as space:
        assert space.scenario == scenario
        assert space.scenario is not scenario  # parsed from its YAML, once per process
    with two.view("sk-a") as again:
        assert again.scenario is space.scenario


def test_a_scenario_the_engine_knows_goes_by_name(pair: tuple[RedisStore, RedisStore]) -> None:
    one, two = pair
    known = Scenario(name="loaded", rules=[])
    for store in pair:
        store.serve_scenarios(lambda name: known if name == "loaded" else None)
    operations.switch_scenario(one, "sk-a", known)
    with two.view("sk-a") as space:
        assert space.scenario is known


def test_a_journal_answer_kept_as_its_recipe_is_written_as_bytes_and_timed_later(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    one, two = pair
    entry = JournalEntry(seq=0, method="POST", path="/v1/chat/completions", status=200)

    def turn(space: Namespace) -> None:  # written as it is once the change is done
        space.record(entry, announce=False)
        entry.response = Unparsed(lambda: b'{"id": "chatcmpl-1"}', orjson.loads)

    one.transact("sk-a", turn)
    one.complete(Exchange([("sk-a", entry)]), duration_ms=1.5, timing=None)  # (off a loop: now)
    found = two.entry("sk-a", 1)
    assert found is not None
    assert found.answer() == {"id": "chatcmpl-1"}
    assert found.duration_ms == 1.5


def test_every_process_hears_every_change(pair: tuple[RedisStore, RedisStore]) -> None:
    one, two = pair
    version, _ = two.feed.recent()  # starts following the shared feed
    operations.set_seed(one, "sk-a", 3)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        changes = two.feed.since(version) or []
        if ("state", "sk-a") in [(c.kind, c.namespace) for c in changes]:
            break
        time.sleep(0.01)
    else:
        pytest.fail("the other process never heard of the change")


def test_what_one_call_announces_is_heard_whole_names_and_all(
    pair: tuple[RedisStore, RedisStore], redis_server: RedisServer
) -> None:
    """A script call's announcements are one feed entry: two journal entries completed at
    once (off a serving loop: in a call of their own), then a change, and the other process
    hears each of them, of a name with the feed's separator in it."""
    one, two = pair
    name = "sk:a b%"
    version, _ = two.feed.recent()  # starts following the shared feed
    entries = [JournalEntry(seq=0, method="GET", path="/", status=200) for _ in range(2)]

    def journal(space: Namespace) -> None:
        for entry in entries:
            space.record(entry, announce=False)

    one.transact(name, journal)
    one.complete(Exchange([(name, entry) for entry in entries]), duration_ms=1.0, timing=None)
    operations.set_seed(one, name, 3)  # its call announces itself
    wanted = {("entry", name, 1), ("entry", name, 2), ("state", name, 0)}
    deadline = time.monotonic() + 5
    while not wanted <= {(c.kind, c.namespace, c.seq) for c in two.feed.since(version) or []}:
        assert time.monotonic() < deadline, "the other process never heard them all"
        time.sleep(0.01)
    feed = redis_server.client().xrange(f"{one.prefix}:feed")
    assert [len(fields[b"a"].split(b":")) for _, fields in feed] == [6, 3]


def test_entries_that_leave_the_journal_leave_nothing_behind(redis_server: RedisServer) -> None:
    """Past its limit the journal's hash keeps the newest entries, their times and call
    numbers, and where it begins and its bytes: nothing of the entries that left, not even
    times that came after their entry had gone."""
    store = RedisStore(redis_server.url, prefix=RedisServer.new_prefix(), journal_limit=2)
    late = []
    for _ in range(5):
        entry = JournalEntry(seq=0, method="GET", path="/", status=200)
        store.transact("sk-a", lambda space, entry=entry: space.record(entry, announce=False))
        if entry.seq == 1:
            late.append(entry)  # completed only once it has left
        else:
            store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    store.complete(Exchange([("sk-a", entry) for entry in late]), duration_ms=1.0, timing=None)
    fields = redis_server.client().hgetall(f"{store.prefix}:ns:sk-a:journal")
    assert sorted(fields) == [b"4", b"5", b"bytes", b"c:4", b"c:5", b"first", b"t:4", b"t:5"]
    assert fields[b"first"] == b"4"
    assert int(fields[b"bytes"]) == len(fields[b"4"]) + len(fields[b"5"])
    store.close()


def test_a_prefix_another_release_laid_out_is_refused_at_start(redis_server: RedisServer) -> None:
    admin = redis_server.client()
    fresh = RedisStore(redis_server.url, prefix=RedisServer.new_prefix())
    fresh.check()
    fresh.check()  # stamped with this release's layout the first time, and accepted after
    assert admin.get(f"{fresh.prefix}:layout") == b"3"
    fresh.close()
    for layout, prefix in ((None, RedisServer.new_prefix()), (b"9", RedisServer.new_prefix())):
        admin.zadd(f"{prefix}:names", {"sk-a": 1})  # an older release's keys carry no stamp
        if layout is not None:
            admin.set(f"{prefix}:layout", layout)
        store = RedisStore(redis_server.url, prefix=prefix)
        expected = "1" if layout is None else "9"
        with pytest.raises(SettingsError, match=f"key layout {expected}; this one writes layout 3"):
            store.check()
        store.close()


def test_prefixes_keep_two_servers_apart(redis_server: RedisServer) -> None:
    first = RedisStore(redis_server.url, prefix=RedisServer.new_prefix())
    second = RedisStore(redis_server.url, prefix=RedisServer.new_prefix())
    operations.set_seed(first, "sk-a", 1)
    assert first.names() == ["sk-a"]
    assert second.names() == []
    first.close()
    second.close()


def test_names_with_colons_keep_their_own_keys(pair: tuple[RedisStore, RedisStore]) -> None:
    one, _ = pair
    operations.set_seed(one, "a", 1)
    operations.set_seed(one, "a:state", 2)
    with one.view("a") as space, one.view("a:state") as other:
        assert (space.seed, other.seed) == (1, 2)
    assert sorted(one.names()) == ["a", "a:state"]


def test_no_redis_at_start_is_a_clear_error() -> None:
    store = RedisStore("redis://127.0.0.1:1/0", timeout=0.2)
    with pytest.raises(SettingsError, match=r"redis://127\.0\.0\.1:1/0: Redis does not answer"):
        store.check()


def test_a_redis_that_will_not_run_scripts_is_a_clear_error_at_start(
    redis_server: RedisServer,
) -> None:
    admin = redis_server.client()
    user = f"noscripts{RedisServer.new_prefix()}"
    admin.acl_setuser(
        user, enabled=True, passwords=["+pw"], keys=["*"], commands=["+@all", "-@scripting"]
    )
    try:
        url = redis_server.url.replace("redis://", f"redis://{user}:pw@")
        store = RedisStore(url, timeout=2)
        with pytest.raises(SettingsError, match=r"Redis does not run mockserver's scripts"):
            store.check()
        store.close()
        loaded = RedisStore(redis_server.url, timeout=2)
        loaded.check()  # and a user that may: the script loaded at start
        assert admin.script_exists(loaded.client.sha) == [True]
        loaded.close()
    finally:
        admin.acl_deluser(user)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            redis.ResponseError("OOM command not allowed when used memory > 'maxmemory'."),
            "out of memory",
        ),
        (
            redis.exceptions.OutOfMemoryError("command not allowed when used memory"),
            "out of memory",
        ),
        (
            redis.ResponseError("READONLY You can't write against a read only replica."),
            "read-only replica",
        ),
        (
            redis.exceptions.ReadOnlyError("You can't write against a read only replica."),
            "read-only replica",
        ),
        (
            redis.ResponseError("MISCONF Redis is configured to save RDB snapshots, but …"),
            "cannot save its snapshot",
        ),
        (
            redis.exceptions.NoPermissionError(
                "this user has no permissions to run the 'evalsha' command"
            ),
            "may no longer run",
        ),
        (
            redis.ResponseError("BUSY Redis is busy running a script."),
            "busy running another client's script",
        ),
        (redis.exceptions.MasterDownError("Link with MASTER is down"), "lost its primary"),
    ],
)
def test_a_redis_that_refuses_the_mocks_calls_is_a_503_saying_why(
    answer: Exception, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    link = RedisStore("redis://:pw-Zq9@127.0.0.1:1/0", timeout=0.2)  # never connects here
    try:
        with caplog.at_level(logging.WARNING, logger="mockserver"):
            failed = link.client.failed(answer)
            again = link.client.failed(answer)
    finally:
        link.close()
    assert isinstance(failed, ServiceUnavailableError)
    assert failed.status == 503
    assert said in failed.message
    assert isinstance(again, ServiceUnavailableError)
    logged = [r.getMessage() for r in caplog.records if said in r.getMessage()]
    assert len(logged) == 1  # once, not once a request
    assert "pw-Zq9" not in failed.message + caplog.text


def test_an_error_answer_no_redis_condition_explains_is_the_mocks_own_bug() -> None:
    link = RedisStore("redis://127.0.0.1:1/0", timeout=0.2)
    try:
        bug = redis.ResponseError("ERR user_script:12: attempt to index a nil value")
        assert (
            link.client.failed(bug) is bug
        )  # raised as it is: the one error boundary's logged 500
        busy_key = redis.ResponseError("BUSYKEY Target key name already exists.")
        assert link.client.failed(busy_key) is busy_key  # not BUSY: a word of its own
    finally:
        link.close()


def test_a_read_only_replica_is_refused_at_start_naming_its_primary(
    redis_server: RedisServer,
) -> None:
    replica = RedisServer(redis_server.binary, "--replicaof", "127.0.0.1", str(redis_server.port))
    replica.start()
    store = RedisStore(replica.url, prefix=RedisServer.new_prefix(), timeout=2)
    try:
        with pytest.raises(SettingsError) as refused:
            store.check()
    finally:
        store.close()
        replica.stop()
    message = str(refused.value)
    assert f"--state {replica.url}: this Redis is a read-only replica (" in message
    assert "give the URL of its primary" in message
    assert "does not answer" not in message


@pytest.mark.parametrize(
    ("maxmemory", "policy", "warned"),
    [
        ("1gb", "allkeys-lru", True),
        ("1gb", "allkeys-random", True),
        ("1gb", "noeviction", False),
        ("1gb", "volatile-lru", False),  # the mock's keys never expire: never evicted
        ("0", "allkeys-lru", False),  # no maxmemory: nothing is ever evicted
    ],
)
def test_a_redis_that_may_evict_the_mocks_keys_is_warned_of_at_start(
    redis_server: RedisServer,
    caplog: pytest.LogCaptureFixture,
    maxmemory: str,
    policy: str,
    warned: bool,
) -> None:
    admin = redis_server.client()
    before = admin.config_get("maxmemory*")
    admin.config_set("maxmemory", maxmemory)
    admin.config_set("maxmemory-policy", policy)
    store = RedisStore(redis_server.url, prefix=RedisServer.new_prefix(), timeout=2)
    try:
        with caplog.at_level(logging.WARNING, logger="mockserver"):
            store.check()
    finally:
        store.close()
        admin.config_set("maxmemory", before["maxmemory"])
        admin.config_set("maxmemory-policy", before["maxmemory-policy"])
        admin.close()
    said = [r.getMessage() for r in caplog.records if "evicts any key" in r.getMessage()]
    if warned:
        assert len(said) == 1, caplog.text
        assert f"(maxmemory-policy {policy})" in said[0]
        assert "maxmemory-policy noeviction" in said[0]
    else:
        assert said == []


def test_a_lost_redis_is_the_apis_503_and_comes_back_by_itself() -> None:
    binary = find_redis_server()
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = RedisServer(binary).start()
    store = RedisStore(server.url, timeout=0.3)
    try:
        operations.set_seed(store, "sk-a", 1)
        server.stop()
        with pytest.raises(ServiceUnavailableError) as lost:
            store.transact("sk-a", lambda space: None)
        assert lost.value.status == 503
        assert lost.value.code == "server_is_overloaded"
        assert "state backend (Redis at" in lost.value.message
        with pytest.raises(ServiceUnavailableError):  # fails at once for a while: no wait
            operations.set_seed(store, "sk-a", 2)
        server.start()
        deadline = time.monotonic() + 10
        while True:
            try:  # a new Redis: a new namespace
                assert store.transact("sk-a", lambda space: space.next_counter()) == 1
                break
            except ServiceUnavailableError:
                assert time.monotonic() < deadline, "the store never found Redis again"
                time.sleep(0.05)
    finally:
        store.close()
        server.stop()


def test_a_reset_in_the_middle_of_another_processs_change_comes_first(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    """A change and a reset of one namespace in two processes are one after the other: the
    change made on the namespace as it was before the reset is not written; it is made again
    on the namespace the reset left (a new one), and nothing of the old one comes back."""
    one, two = pair
    one.transact("sk-a", lambda space: space.next_counter())
    reset: list[int] = []

    def count(space: Namespace) -> tuple[int, int]:
        if not reset:  # before this change is written, the other process resets it
            two.reset("sk-a")
            reset.append(space.counter)
        return space.next_counter(), space.incarnation

    with one.view("sk-a") as before:
        first = before.incarnation
    counted, incarnation = one.transact("sk-a", count)
    assert reset == [1]
    assert counted == 1  # made again on the new namespace
    assert incarnation not in (0, first)  # a new incarnation: a recipe of the old one is stale
    assert one.names() == ["sk-a"]
    with two.view("sk-a") as space:
        assert space.counter == 1


def test_call_numbers_count_every_processs_calls_in_one_sequence(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    one, two = pair
    made = []
    for n in range(6):
        store, name = (one, "sk-a") if n % 2 else (two, "sk-b")
        entry = JournalEntry(seq=0, method="GET", path=f"/{n}", status=200)
        store.transact(name, lambda space, entry=entry: space.record(entry, announce=False))
        made.append(entry.number)
    assert made == [1, 2, 3, 4, 5, 6]  # as written, told to the process that wrote each
    read = [(e.path, e.number) for name in ("sk-a", "sk-b") for e in operations.journal(one, name)]
    assert sorted(read, key=lambda pair: pair[1]) == [(f"/{n}", n + 1) for n in range(6)]


def test_one_round_trip_changes_are_exactly_once_under_contention(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    """Four threads over two stores (two processes) change one namespace at once, each turn
    made on the state its store last saw: every number is taken once, no entry is lost."""
    taken: list[int] = []
    made: list[JournalEntry] = []
    lock = threading.Lock()

    def turn(space: Namespace) -> tuple[int, JournalEntry]:
        entry = JournalEntry(seq=0, method="POST", path="/v1/x", status=200)
        space.record(entry, announce=False)
        return space.next_counter(), entry

    def work(store: RedisStore) -> None:
        for _ in range(50):
            counter, entry = store.transact("sk-a", turn)
            with lock:
                taken.append(counter)
                made.append(entry)

    threads = [threading.Thread(target=work, args=(store,)) for store in (*pair, *pair)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(1, 201))
    assert sorted(entry.seq for entry in made) == list(range(1, 201))
    assert len({entry.number for entry in made}) == 200
    one, _ = pair
    with one.view("sk-a") as space:
        assert space.counter == 200
        assert [entry.seq for entry in space.journal][-10:] == list(range(191, 201))


def test_scripts_redis_forgot_are_loaded_again(
    pair: tuple[RedisStore, RedisStore], redis_server: RedisServer
) -> None:
    one, _ = pair
    one.transact("sk-a", lambda space: space.next_counter())
    redis_server.client().script_flush()  # as a restarted Redis without persistence has
    assert one.transact("sk-a", lambda space: space.next_counter()) == 2
    assert one.transact("sk-a", lambda space: space.next_counter()) == 3


def test_a_change_that_keeps_missing_takes_the_lease_and_is_written_next(
    pair: tuple[RedisStore, RedisStore],
) -> None:
    """Retries are bounded: each time one process makes its change, another writes the
    namespace first; on its third miss in a row the first takes the namespace's lease, so the
    other's next change waits for it, and its next try is written."""
    one, two = pair
    one.transact("sk-a", _count)
    runs = 0
    waiting: list[threading.Thread] = []
    after: list[int] = []

    def keeps_missing(space: Namespace) -> int:
        nonlocal runs
        runs += 1
        if runs <= 4:  # another process writes first (the fourth time, after the lease is asked)
            two.transact("sk-a", _count)
        elif not waiting:  # under the lease: the other process's change waits for this one
            waiting.append(
                threading.Thread(target=lambda: after.append(two.transact("sk-a", _count)))
            )
            waiting[0].start()
            time.sleep(0.1)
        return space.next_counter()

    counted = one.transact("sk-a", keeps_missing)
    waiting[0].join(timeout=5)
    assert runs == 5  # three misses, one more with the lease asked, then written
    assert counted == 6  # on the other process's four changes
    assert after == [7]  # the other's change came after it, not in between


def _count(space: Namespace) -> int:
    return space.next_counter()


def test_a_namespace_another_process_keeps_leased_is_a_503_once_waited_out(
    pair: tuple[RedisStore, RedisStore],
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A change that meets another process's lease waits a moment and tries again; past
    ``WAIT`` it is the API's 503, and once the lease is gone the namespace changes again."""
    one, _ = pair
    one.transact("sk-a", _count)
    monkeypatch.setattr("mockserver.store.redis.change.WAIT", 0.3)
    lease = f"{one.prefix}:ns:sk-a:lease"
    redis_server.client().set(lease, "another-process", px=60_000)
    began = time.monotonic()
    with pytest.raises(ServiceUnavailableError, match="stayed held elsewhere"):
        one.transact("sk-a", _count)
    assert time.monotonic() - began >= 0.3  # it waited first
    redis_server.client().delete(lease)
    assert one.transact("sk-a", _count) == 2
