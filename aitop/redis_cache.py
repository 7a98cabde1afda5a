"""Django's Redis cache backend, keeping its `redis.Redis` clients instead of building one per call.

Django's `RedisCacheClient.get_client()` makes a new `redis.Redis` for every
cache call. Building one fills its table of ~170 response callbacks, which
cost about 250 µs a call here (redis-py 8): more than the round trip to Redis
and, on a warm page, more than the rest of the request. A `redis.Redis` is
only a front for its connection pool (which holds the connections, and
resets itself in a forked process), so one per pool serves every call alike.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusingRedisCacheClient(RedisCacheClient):
    """Django's client, with one `redis.Redis` per connection pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            # Pools live as long as this object, so their ids stay theirs.
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ReusingRedisCache(RedisCache):
    """`django.core.cache.backends.redis.RedisCache` with `ReusingRedisCacheClient`."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient
