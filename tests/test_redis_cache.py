"""The Redis cache backend keeps its clients, one per thread with a connection of its own.

Django built a client per call (more than the round trip), and a pooled
client takes and gives back a connection on every command (aitop/redis_cache.py).
"""

import os
import threading

import pytest
import redis

from aitop.redis_cache import ReusingRedisCache, packed_commands, transaction

# Database 1 of the local Redis: this project's own (see README, "Caching").
LOCATION = "redis://127.0.0.1:6379/1"


def _connection(backend):
    return backend._cache.get_client().connection


def test_every_call_of_a_thread_goes_through_one_client_per_server():
    backend = ReusingRedisCache(LOCATION, {})

    assert backend._cache.get_client() is backend._cache.get_client(write=True)


def test_a_kept_client_still_reads_and_writes():
    backend = ReusingRedisCache(LOCATION, {})
    backend.set("aitop:test:kept-client", {"n": 1}, 10)

    assert backend.get("aitop:test:kept-client") == {"n": 1}
    assert backend.get_many(["aitop:test:kept-client", "aitop:test:absent"]) == {
        "aitop:test:kept-client": {"n": 1}
    }
    backend.delete("aitop:test:kept-client")


def test_each_thread_has_a_connection_of_its_own():
    backend = ReusingRedisCache(LOCATION, {})
    backend.get("aitop:test:absent")
    seen = []

    def read():
        backend.get("aitop:test:absent")
        seen.append(_connection(backend))

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()

    assert seen[0] is not _connection(backend)


def test_a_finished_thread_gives_its_connection_back_for_the_next():
    backend = ReusingRedisCache(LOCATION, {})
    backend.get("aitop:test:absent")
    server = redis.Redis.from_url(LOCATION)
    before = server.info("clients")["connected_clients"]

    for _ in range(10):
        thread = threading.Thread(target=backend.get, args=["aitop:test:absent"])
        thread.start()
        thread.join()

    # One more connection at most, reused by each thread in turn: none left open per thread.
    assert server.info("clients")["connected_clients"] <= before + 1


def test_a_forked_child_talks_to_redis_on_its_own_connection():
    backend = ReusingRedisCache(LOCATION, {})
    backend.set("aitop:test:fork", "parent", 10)
    parent_connection = _connection(backend)
    reader, writer = os.pipe()

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            backend.set("aitop:test:fork-child", "child", 10)
            own = _connection(backend).pid == os.getpid()
            answer = f"{own} {backend.get('aitop:test:fork')}"
        except Exception as error:  # reported to the parent
            answer = repr(error)
        os.write(writer, answer.encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(pid, 0)
    with os.fdopen(reader) as pipe:
        child_said = pipe.read()

    assert child_said == "True parent"
    # The parent's connection was neither taken nor closed by the child.
    assert _connection(backend) is parent_connection
    assert backend.get("aitop:test:fork-child") == "child"
    backend.delete_many(["aitop:test:fork", "aitop:test:fork-child"])


def test_get_many_reads_integers_pickles_and_absent_keys_as_django_does():
    backend = ReusingRedisCache(LOCATION, {})
    backend.set("aitop:test:int", 41, 10)
    backend.incr("aitop:test:int")
    backend.set("aitop:test:text", "１２", 10)
    backend.set("aitop:test:negative", -3, 10)

    found = backend.get_many(
        ["aitop:test:int", "aitop:test:text", "aitop:test:negative", "aitop:test:absent"]
    )

    assert found == {"aitop:test:int": 42, "aitop:test:text": "１２", "aitop:test:negative": -3}
    assert backend.get_many([]) == {}
    backend.delete_many(["aitop:test:int", "aitop:test:text", "aitop:test:negative"])


def test_get_many_answers_after_redis_closed_the_threads_connection():
    backend = ReusingRedisCache(LOCATION, {})
    backend.set("aitop:test:reconnect", "still here", 10)
    connection = _connection(backend)
    own_id = backend._cache.get_client().client_id()
    server = redis.Redis.from_url(LOCATION)

    # As when Redis restarts or drops an idle client: the kept socket is dead.
    server.client_kill_filter(_id=own_id)

    assert backend.get_many(["aitop:test:reconnect"]) == {"aitop:test:reconnect": "still here"}
    # Reconnected on the same connection object, and it keeps working.
    assert _connection(backend) is connection
    assert backend._cache.get_client().client_id() != own_id
    assert backend.get_many(["aitop:test:reconnect"]) == {"aitop:test:reconnect": "still here"}
    backend.delete("aitop:test:reconnect")


def test_a_transaction_answers_each_command_in_order():
    backend = ReusingRedisCache(LOCATION, {})
    client = backend._cache.get_client()
    client.delete("aitop:test:log")

    replies = transaction(
        client,
        [
            ("ZADD", "aitop:test:log", 1, "first"),
            ("ZADD", "aitop:test:log", 2, "second"),
            ("ZCARD", "aitop:test:log"),
            ("MGET", "aitop:test:absent", "aitop:test:log-absent"),
        ],
    )

    assert replies == [1, 1, 2, [None, None]]
    client.delete("aitop:test:log")


def test_a_command_redis_refuses_raises_and_the_next_command_reads_its_own_reply():
    backend = ReusingRedisCache(LOCATION, {})
    backend.set("aitop:test:text", "not a sorted set", 10)
    text = backend.make_key("aitop:test:text")
    client = backend._cache.get_client()

    # Refused while queued (too few arguments): the transaction never runs.
    with pytest.raises(redis.ResponseError):
        transaction(client, [("SET", "aitop:test:queued", 1), ("ZADD", text)])
    assert client.get("aitop:test:queued") is None
    assert backend.get_many(["aitop:test:text"]) == {"aitop:test:text": "not a sorted set"}
    # Refused as it ran (the key holds another type): the others ran.
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        transaction(client, [("ZADD", text, 1, "x"), ("SET", "aitop:test:ran", 1)])
    assert client.get("aitop:test:ran") == b"1"
    assert backend.get_many(["aitop:test:text"]) == {"aitop:test:text": "not a sorted set"}
    backend.delete("aitop:test:text")
    client.delete("aitop:test:ran")


def test_a_transaction_answers_after_redis_closed_the_threads_connection():
    backend = ReusingRedisCache(LOCATION, {})
    client = backend._cache.get_client()
    own_id = client.client_id()
    redis.Redis.from_url(LOCATION).client_kill_filter(_id=own_id)

    replies = transaction(
        client, [("SET", "aitop:test:after-kill", 7), ("GET", "aitop:test:after-kill")]
    )

    # Through redis-py's pipeline: its callbacks made SET's OK a True.
    assert replies == [True, b"7"]
    assert transaction(client, [("GET", "aitop:test:after-kill")]) == [b"7"]
    assert client.client_id() != own_id
    client.delete("aitop:test:after-kill")


def test_commands_are_packed_as_redis_py_packs_them():
    connection = redis.Redis.from_url(LOCATION).connection_pool.make_connection()
    batch = [
        ("MULTI",),
        ("ZADD", ":1:aitop:rate:throttle_anon_10.0.0.1", "1796588804.69", "1796588804.69:0a1b"),
        ("PEXPIRE", "日志", 60000),
        ("ZRANGE", b"raw\r\nkey", 0, -1),
        ("EXEC",),
    ]

    assert packed_commands(batch) == b"".join(connection.pack_commands(batch))
