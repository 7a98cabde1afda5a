"""The Redis cache backend keeps its clients: building one per call cost more than a round trip."""

from aitop.redis_cache import ReusingRedisCache

# Database 1 of the local Redis: this project's own (see README, "Caching").
LOCATION = "redis://127.0.0.1:6379/1"


def test_every_call_goes_through_one_client_per_server():
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
