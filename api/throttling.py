"""Request rates for anonymous and authenticated callers, read from settings at each request.

DRF's own throttles copy the rates once, when the module is imported; these
read `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]` every time, so a deployment
(or a test) that changes the settings gets the rates it set.

The rule is DRF's: a sliding log of each caller's request times per scope,
a request refused (and not logged) when the log of the last period is full.
Where the log lives depends on the cache:

- Redis: a sorted set per caller and scope. One MULTI/EXEC transaction
  trims each log to the period, appends the request and counts the log, and
  reads what a cached API answer needs (`anonymous_count_reading`) in the
  same round trip, so a warm anonymous answer costs one round trip. A log
  that counts more than its limit refuses, and the request's entry is taken
  out again in a second round trip (only then): the log keeps the requests
  it allowed, as DRF's does. Transactions run one at a time, so of requests
  at once exactly the limit pass (DRF reads a pickled list and writes it
  back, so two could take the last place). A Lua script did the same in one
  command, but Redis spent 30–50 µs running it against 11 µs for the
  transaction (`INFO commandstats`), on every anonymous request.
- Any other cache: DRF's pickled list, read and written through the cache API.
"""

import math
import secrets
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.http.request import HttpHeaders
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from aitop.redis_cache import transaction as redis_transaction

# The sorted sets' keys: not DRF's own, which a process of an older release
# (or one with another cache) may still hold a pickled list under.
LOG_PREFIX = "aitop:rate:"


@dataclass(frozen=True)
class Counted:
    """A request already counted against the rates; `wait` is set when refused."""

    wait: float | None = None
    refused: bool = False


class _SharedLog:
    """DRF's throttle, with the rate read at each request and the log kept as described above."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def allow_request(self, request, view):
        counted = getattr(request, "aitop_throttle_counted", None)
        if counted is not None:
            # An anonymous request api/cache.py counted already, against every throttle.
            self._wait = counted.wait
            return not counted.refused
        backend = _redis_backend()
        if backend is None or self.rate is None:
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        _found, (counted,) = _read_and_count_in_redis(backend, [], [self], now=self.timer())
        self._wait = counted.wait
        return not counted.refused

    def wait(self):
        if hasattr(self, "_wait"):
            return self._wait
        return super().wait()


class AnonymousThrottle(_SharedLog, AnonRateThrottle):
    """Callers without a token or session, counted by their address (see NUM_PROXIES)."""


class UserThrottle(_SharedLog, UserRateThrottle):
    """Authenticated callers, counted per user whatever address they call from."""


class _AnonymousCaller:
    """What DRF's throttles read of a request (user, headers, META), before authentication ran."""

    user = AnonymousUser()

    def __init__(self, request):
        self.META = request.META
        self.headers = _MetaHeaders(request.META)


class _MetaHeaders:
    """`request.headers.get()` read from META: building Django's mapping of every header
    cost 10 µs a request, for the one header (X-Forwarded-For) DRF's `get_ident` reads."""

    def __init__(self, meta):
        self._meta = meta

    def get(self, name: str, default=None):
        return self._meta.get(HttpHeaders.to_wsgi_name(name), default)


def anonymous_throttles(request) -> list:
    """The default throttles that count this caller, each with its cache key (no cache read)."""
    caller = _AnonymousCaller(request)
    keyed = []
    for throttle_class in api_settings.DEFAULT_THROTTLE_CLASSES:
        throttle = throttle_class()
        if throttle.rate is not None and (key := throttle.get_cache_key(caller, None)):
            throttle.key = key
            keyed.append(throttle)
    return keyed


def anonymous_count(request) -> Counted:
    """Count a request without credentials against every default throttle, once.

    A cached API answer is still an answer: api/cache.py counts each anonymous
    request here (or in `anonymous_count_reading`), before it is served from
    the cache or rendered, and the view's throttles then take that count
    instead of counting again (`_SharedLog.allow_request`).
    """
    if getattr(request, "aitop_throttle_counted", None) is None:
        anonymous_count_reading(request, anonymous_throttles(request), [])
    return request.aitop_throttle_counted


def anonymous_count_reading(request, throttles: list, keys: list[str]) -> dict:
    """Count the request against `throttles` and read `keys` from the cache, in one round trip.

    The entries found under `keys`, as `cache.get_many` gives them. The count
    is kept on the request (`aitop_throttle_counted`): a second call only reads.
    """
    if getattr(request, "aitop_throttle_counted", None) is not None:
        return cache.get_many(keys) if keys else {}
    backend = _redis_backend()
    now = throttles[0].timer() if throttles else 0.0
    if backend is not None:
        found, outcomes = _read_and_count_in_redis(backend, keys, throttles, now=now)
    else:
        read = cache.get_many([*keys, *(t.key for t in throttles)]) if keys or throttles else {}
        histories = {t.key: read.pop(t.key, []) for t in throttles}
        found, outcomes = read, _logs_count_in_cache(throttles, histories, now=now)
    waits = [o.wait for o in outcomes if o.refused and o.wait is not None]
    request.aitop_throttle_counted = Counted(
        wait=max(waits, default=None), refused=any(o.refused for o in outcomes)
    )
    return found


def _redis_backend() -> RedisCache | None:
    backend = caches["default"]
    return backend if isinstance(backend, RedisCache) else None


def _read_and_count_in_redis(
    backend: RedisCache, keys: list[str], throttles: list, *, now: float
) -> tuple[dict, list[Counted]]:
    """The logs counted and `keys` read in one transaction: one round trip (see the module)."""
    if not keys and not throttles:
        return {}, []
    stored = {backend.make_and_validate_key(key): key for key in keys}
    client = backend._cache.get_client(None, write=True)
    logs = [backend.make_and_validate_key(LOG_PREFIX + t.key) for t in throttles]
    # This request's entry: its time, and a token that tells two at the same time apart.
    member = f"{now!r}:{secrets.token_hex(6)}"
    batch = []
    for log, throttle in zip(logs, throttles, strict=True):
        batch += [
            ("ZREMRANGEBYSCORE", log, "-inf", repr(now - throttle.duration)),
            ("ZADD", log, repr(now), member),
            ("ZCARD", log),
            ("PEXPIRE", log, math.ceil(throttle.duration * 1000)),
        ]
    if stored:
        batch.append(("MGET", *stored))
    replies = redis_transaction(client, batch)
    counts = [int(count) for count in replies[2 : 4 * len(throttles) : 4]]
    loads = backend._cache._serializer.loads
    values = replies[-1] if stored else []
    found = {key: loads(v) for key, v in zip(stored.values(), values, strict=True) if v}
    return found, _outcomes(client, throttles, logs, counts, member, now=now)


def _outcomes(client, throttles, logs, counts, member: str, *, now: float) -> list[Counted]:
    """Each log's verdict; where one refuses, the entry is taken out again (one more round trip)."""
    pairs = enumerate(zip(throttles, counts, strict=True))
    over = [i for i, (throttle, count) in pairs if count > throttle.num_requests]
    if not over:
        return [Counted()] * len(throttles)
    batch = []
    for i in over:
        # The oldest entry of the period decides the wait (DRF's `wait()`).
        batch += [("ZREM", logs[i], member), ("ZRANGE", logs[i], 0, 0)]
    replies = redis_transaction(client, batch)
    outcomes = [Counted()] * len(throttles)
    for i, oldest in zip(over, replies[1::2], strict=True):
        # Without this request's entry: what DRF's log held when it refused.
        count = counts[i] - 1
        # An entry is its time, a colon and a token (its score is the time too).
        at = float(oldest[0].split(b":", 1)[0]) if count and oldest else now
        outcomes[i] = Counted(wait=_wait(throttles[i], count, at, now=now), refused=True)
    return outcomes


def _logs_count_in_cache(throttles: list, histories: dict, *, now: float) -> list[Counted]:
    """DRF's `allow_request` for each throttle, its pickled lists read before and written once."""
    outcomes, writes = [], {}
    for throttle in throttles:
        history = histories[throttle.key]
        while history and history[-1] <= now - throttle.duration:
            history.pop()
        if len(history) >= throttle.num_requests:
            wait = _wait(throttle, len(history), history[-1], now=now)
            outcomes.append(Counted(wait=wait, refused=True))
        else:
            history.insert(0, now)
            writes.setdefault(throttle.duration, {})[throttle.key] = history
            outcomes.append(Counted())
    for duration, entries in writes.items():
        cache.set_many(entries, duration)
    return outcomes


def _wait(throttle, count: int, oldest: float, *, now: float) -> float | None:
    """DRF's `wait()`: the rest of the period, shared among the requests it will allow."""
    remaining = throttle.duration - (now - oldest)
    available = throttle.num_requests - count + 1
    return remaining / available if available > 0 else None
