"""Rates for anonymous and authenticated callers; a forged X-Forwarded-For dodges nothing."""

import copy

import pytest
from django.core.cache import cache

from tests.factories import make_user
from tests.feed.test_page_cache import CACHES  # locmem, and the suite's Redis (else database 2)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    """Set the API's rates (and proxies) for one test."""

    def set_rates(*, anon="3/min", user="5/min", proxies=0):
        config = copy.deepcopy(settings.REST_FRAMEWORK)
        config["DEFAULT_THROTTLE_RATES"] = {"anon": anon, "user": user}
        config["NUM_PROXIES"] = proxies
        settings.REST_FRAMEWORK = config

    return set_rates


def test_anonymous_caller_over_the_rate_gets_429_with_retry_after(api, rates):
    rates(anon="3/min")

    statuses = [api.get("/api/v1/sources/").status_code for _ in range(4)]
    refused = api.get("/api/v1/sources/")

    assert statuses == [200, 200, 200, 429]
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused.json()["code"] == "throttled"


def test_forged_forwarded_for_header_does_not_reset_the_count(api, rates):
    rates(anon="3/min", proxies=0)

    statuses = [
        api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
        for n in range(4)
    ]

    assert statuses == [200, 200, 200, 429]


def test_behind_one_proxy_the_address_it_appended_is_the_one_counted(api, rates):
    rates(anon="2/min", proxies=1)

    # The caller forges the first entry; our proxy appends the address it saw.
    forged = [
        api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 198.51.100.7").status_code
        for n in range(3)
    ]
    other_client = api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code

    assert forged == [200, 200, 429]
    assert other_client == 200


def test_authenticated_callers_have_their_own_rate_per_user(api, token_client, rates):
    rates(anon="100/min", user="2/min")
    first, second = token_client(make_user()), token_client(make_user())

    first_statuses = [first.get("/api/v1/sources/").status_code for _ in range(3)]
    second_status = second.get("/api/v1/sources/").status_code

    assert first_statuses == [200, 200, 429]
    assert second_status == 200
    assert api.get("/api/v1/sources/").status_code == 200


@pytest.fixture(params=list(CACHES))
def backend(request, settings):
    """Where the callers' logs live: per process (locmem, DRF's lists) or Redis (sorted sets)."""
    settings.CACHES = {"default": CACHES[request.param]}
    cache.clear()
    yield request.param
    cache.clear()


@pytest.fixture
def redis_round_trips(monkeypatch):
    """How many times the app wrote to a Redis connection: one per command or pipeline."""
    from redis.connection import AbstractConnection

    sent = []
    send = AbstractConnection.send_packed_command

    def counted(self, command, check_health=True):
        sent.append(command)
        return send(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    return sent


def test_views_the_answer_cache_does_not_hold_count_anonymous_callers_once_too(api, rates, backend):
    # The schema is counted by DRF's throttles alone, the API's root by
    # api/cache.py (as every anonymous read under /api/v1/ is) and DRF's
    # throttles then take that count: both share the caller's one log.
    rates(anon="3/min", user="1000/min")

    statuses = [api.get(path).status_code for path in ("/api/schema/", "/api/v1/", "/api/v1/")]
    refused = api.get("/api/v1/sources/")

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_an_editor_s_rate_and_an_anonymous_caller_s_share_no_log(api, token_client, rates, backend):
    rates(anon="1/min", user="2/min")
    editor = token_client(make_user())

    assert api.get("/api/v1/sources/").status_code == 200
    assert [editor.get("/api/v1/sources/").status_code for _ in range(3)] == [200, 200, 429]
    assert api.get("/api/v1/sources/").status_code == 429


def test_with_redis_a_warm_anonymous_answer_is_one_round_trip(
    api, rates, settings, redis_round_trips
):
    settings.CACHES = {"default": CACHES["redis"]}
    cache.clear()
    rates(anon="100/min", user="1000/min")
    # What DRF's own throttle (an older release) left under its key is no log of ours.
    cache.set("throttle_anon_127.0.0.1", [1.0, 2.0], 60)
    assert api.get("/api/v1/sources/").status_code == 200  # rendered and stored
    redis_round_trips.clear()

    warm = api.get("/api/v1/sources/")

    assert warm.status_code == 200
    # The generation, the answer and the caller's two logs (anon, user).
    assert len(redis_round_trips) == 1, redis_round_trips
    cache.clear()


def test_with_redis_the_last_place_in_a_period_goes_to_one_request_only(rates, settings):
    # Requests at once: the log is checked and appended in one script, so
    # however the requests interleave, exactly the limit of them pass.
    import threading

    from api.throttling import anonymous_count

    settings.CACHES = {"default": CACHES["redis"]}
    cache.clear()
    rates(anon="5/min", user="1000/min")

    class Caller:
        META = {"REMOTE_ADDR": "198.51.100.20"}
        headers = {}

    barrier, outcomes = threading.Barrier(12), []

    def call():
        barrier.wait(timeout=5)
        outcomes.append(anonymous_count(Caller()).refused)

    threads = [threading.Thread(target=call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == [False] * 5 + [True] * 7
    cache.clear()


def _redis_log(kind: str) -> list[tuple[bytes, float]]:
    """The entries of the test client's log of one scope, in Redis."""
    from api.throttling import LOG_PREFIX

    client = cache._cache.get_client()
    return client.zrange(
        cache.make_key(f"{LOG_PREFIX}throttle_{kind}_127.0.0.1"), 0, -1, withscores=True
    )


def test_with_redis_a_refused_request_leaves_no_entry_in_the_log(api, rates, settings):
    settings.CACHES = {"default": CACHES["redis"]}
    cache.clear()
    rates(anon="2/min", user="4/min")

    statuses = [api.get("/api/v1/sources/").status_code for _ in range(6)]

    assert statuses == [200, 200, 429, 429, 429, 429]
    # Each log holds the requests it allowed: the anonymous rate's two, and
    # the four the per-caller rate allowed (it counts what the other refused).
    assert len(_redis_log("anon")) == 2
    assert len(_redis_log("user")) == 4
    cache.clear()


def test_with_redis_the_wait_runs_until_the_oldest_entry_leaves_the_period(api, rates, settings):
    import time

    from api.throttling import LOG_PREFIX

    settings.CACHES = {"default": CACHES["redis"]}
    cache.clear()
    rates(anon="2/min", user="1000/min")
    # One request allowed 50 s ago, as an earlier request of this caller left it.
    earlier = time.time() - 50
    log = cache.make_key(f"{LOG_PREFIX}throttle_anon_127.0.0.1")
    cache._cache.get_client().zadd(log, {f"{earlier!r}:0123456789ab": earlier})

    allowed = api.get("/api/v1/sources/")
    refused = api.get("/api/v1/sources/")

    assert allowed.status_code == 200
    assert refused.status_code == 429
    # DRF's wait: the 10 s until the oldest entry is a minute old, for the one place it frees.
    assert 9 <= int(refused["Retry-After"]) <= 11
    cache.clear()
