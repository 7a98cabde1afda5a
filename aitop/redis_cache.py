"""Django's Redis cache backend, with one kept `redis.Redis` per thread, holding its own connection.

Django's `RedisCacheClient.get_client()` makes a new `redis.Redis` for every
cache call. Building one fills its table of ~170 response callbacks, which
cost about 250 µs a call here (redis-py 8): more than the round trip to Redis
and, on a warm page, more than the rest of the request. So clients are kept.

A pooled client still takes a connection from its pool and gives it back on
every command: a lock, two `getpid()`s, a `poll()` to check the connection
has no reply left over, and redis-py's bookkeeping of the pool's counts. That
was about 30 µs of the 80 µs of CPU a warm page's one `MGET` cost, against
25 µs for the same round trip on a bare socket. So each thread keeps a
client with a connection of its own (`single_connection_client`), taken
from the pool once:

- A command cut off part-way (a timeout, an exception while reading) makes
  redis-py close that connection, so no reply is ever left over for the next
  command; that is what the pool's check was for.
- A forked process (gunicorn's workers) must not share its parent's socket:
  the kept clients are forgotten in the child, which opens its own.
- When a thread ends, its client goes with it and gives the connection back
  to the pool, for the next thread's client.

A pipeline still takes a pooled connection; nothing on a warm path sends one.

A warm page's one read, `get_many`, is also sent more directly (measured
with a page and the generation, 13 µs of CPU against 26 through
`Redis.mget` and 59 through Django's whole `get_many`):

- The `MGET` goes straight to the thread's connection (`command`; the
  API's rate transaction too, `transaction`): redis-py's command path adds
  a lock (the connection is the thread's own), a retry wrapper and its
  response callbacks, none of which these need. A connection that failed
  is closed by redis-py as it fails; the command is then sent again through
  redis-py, which reconnects and retries as configured (as its own retry
  would, a transaction that ran before the reply was lost runs twice).
- Django's serializer tries `int()` on every value first and pickles
  everything else, so each pickled value raised and caught a `ValueError`:
  a pickle is told by its first byte instead.
- Keys are made without Django's memcached checks (at most 250 characters,
  no spaces or control characters, one character at a time in Python):
  Redis takes any key, and ours are hex digests with a prefix.
"""

import os
import pickle
import threading
import weakref

from django.core.cache.backends.redis import RedisCache, RedisCacheClient, RedisSerializer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

# Every client object, so that a forked child forgets their connections.
_CLIENTS = weakref.WeakSet()


class PickleFirstSerializer(RedisSerializer):
    """Django's serializer (integers stored as they are, the rest pickled), read without a raise."""

    # Every pickle of protocol 2 and later starts with the PROTO opcode.
    _PICKLED = pickle.PROTO[0]

    def loads(self, data):
        if data and data[0] == self._PICKLED:
            return pickle.loads(data)  # noqa: S301 - written by this cache, as Django's own
        return int(data)


class ReusingRedisCacheClient(RedisCacheClient):
    """Django's client, with one `redis.Redis` per connection pool and thread."""

    def __init__(self, *args, serializer=None, **kwargs):
        super().__init__(*args, serializer=serializer or PickleFirstSerializer, **kwargs)
        self._kept = threading.local()
        _CLIENTS.add(self)

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        kept = self._kept.__dict__.setdefault("clients", {})
        client = kept.get(id(pool))
        if client is None:
            # Pools live as long as this object, so their ids stay theirs.
            client = kept[id(pool)] = self._client(
                connection_pool=pool, single_connection_client=True
            )
        return client

    def get_many(self, keys):
        if not keys:
            return {}  # as redis-py does: MGET without keys is an error in Redis
        values = command(self.get_client(None), "MGET", *keys)
        loads = self._serializer.loads
        return {
            key: loads(value) for key, value in zip(keys, values, strict=True) if value is not None
        }

    def _forget_clients(self) -> None:
        # The parent's clients hold the parent's sockets; the pools reset themselves.
        self._kept = threading.local()


def command(client, *args):
    """Run a command whose reply needs no parsing (`MGET`), Redis's reply as it is.

    On a kept client, straight on its connection, without redis-py's command
    machinery (see above); otherwise, and again after a connection failed
    (redis-py closed it as it failed), through redis-py, which reconnects
    and retries as configured.
    """
    connection = client.connection
    if connection is not None:
        try:
            connection.send_packed_command(connection.pack_command(*args), check_health=False)
            return connection.read_response()
        except (RedisConnectionError, RedisTimeoutError):
            pass
    return client.execute_command(*args)


def transaction(client, batch: list[tuple]) -> list:
    """Run `batch` as one MULTI/EXEC transaction in one round trip: each command's reply, in order.

    On a kept client, straight on its connection as `command` does: MULTI,
    the commands and EXEC in one write, their replies read back (Redis
    answers each queued command QUEUED, then EXEC the list of replies).
    Otherwise, and after a connection failed, through redis-py's
    transactional pipeline, which reconnects and retries as configured; its
    replies then pass redis-py's callbacks (PEXPIRE's 1 is True, say).
    A command Redis refuses raises its error either way.
    """
    connection = client.connection
    if connection is not None:
        packed = packed_commands([("MULTI",), *batch, ("EXEC",)])
        try:
            connection.send_packed_command([packed], check_health=False)
            try:
                for _ in range(len(batch) + 1):  # OK, then QUEUED each
                    connection.read_response()
                replies = connection.read_response()
            except ResponseError:
                # Refused while queued: the rest of the replies are still on
                # the socket. Closing it leaves none for the next command.
                connection.disconnect()
                raise
        except (RedisConnectionError, RedisTimeoutError):
            pass
        else:
            for reply in replies:
                if isinstance(reply, ResponseError):
                    raise reply
            return replies
    with client.pipeline(transaction=True) as pipeline:
        for args in batch:
            pipeline.execute_command(*args)
        return pipeline.execute()


def packed_commands(commands: list[tuple]) -> bytes:
    """`commands` in Redis's protocol (RESP), the bytes redis-py's `pack_commands` sends.

    Its own packing of the API's transaction (eleven commands) cost 35 µs;
    this costs about 8. Arguments are text, bytes or integers.
    """
    parts = []
    for args in commands:
        parts.append(b"*%d\r\n" % len(args))
        for arg in args:
            if isinstance(arg, str):
                arg = arg.encode()
            elif isinstance(arg, int):
                arg = b"%d" % arg
            parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(parts)


def _forget_clients_in_child() -> None:
    for client in list(_CLIENTS):
        client._forget_clients()


os.register_at_fork(after_in_child=_forget_clients_in_child)


class ReusingRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache` with `ReusingRedisCacheClient`."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient

    def make_and_validate_key(self, key, version=None):
        # Django's checks are memcached's rules; Redis takes any key (see above).
        return self.make_key(key, version=version)
