"""Request rates for anonymous and authenticated callers, read from settings at each request.

DRF's own throttles copy the rates once, when the module is imported; these
read `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]` every time, so a deployment
(or a test) that changes the settings gets the rates it set.
"""

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class AnonymousThrottle(AnonRateThrottle):
    """Callers without a token or session, counted by their address (see NUM_PROXIES)."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]


class UserThrottle(UserRateThrottle):
    """Authenticated callers, counted per user whatever address they call from."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]


@dataclass(frozen=True)
class Counted:
    """An anonymous request already counted against the rates; `wait` is set when refused."""

    wait: float | None = None
    refused: bool = False


class _AnonymousCaller:
    """What DRF's throttles read of a request (user, headers, META), before authentication ran."""

    user = AnonymousUser()

    def __init__(self, request):
        self.META = request.META
        self.headers = request.headers


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


def anonymous_count(request, *, throttles=None, histories: dict | None = None) -> Counted:
    """Count a request without credentials against every default throttle, as the view would.

    A cached API answer is still an answer: api/cache.py counts each anonymous
    request here, once, before it is served from the cache or rendered, and
    the view does not count it again (`CachedForAnonymousMixin.check_throttles`).
    It is DRF's `allow_request` for each throttle (its history of request
    times per caller and scope; a refused request is not recorded), with the
    histories read in one cache call (or passed in, read with the cached
    answer) and written in one.
    """
    counted = getattr(request, "aitop_throttle_counted", None)
    if counted is not None:
        return counted
    throttles = anonymous_throttles(request) if throttles is None else throttles
    if histories is None:
        histories = cache.get_many([t.key for t in throttles]) if throttles else {}
    waits, refused, writes = [], False, {}
    for throttle in throttles:
        throttle.now = throttle.timer()
        throttle.history = histories.get(throttle.key, [])
        while throttle.history and throttle.history[-1] <= throttle.now - throttle.duration:
            throttle.history.pop()
        if len(throttle.history) >= throttle.num_requests:
            refused = True
            if (wait := throttle.wait()) is not None:
                waits.append(wait)
        else:
            throttle.history.insert(0, throttle.now)
            writes.setdefault(throttle.duration, {})[throttle.key] = throttle.history
    for duration, entries in writes.items():
        cache.set_many(entries, duration)
    request.aitop_throttle_counted = Counted(wait=max(waits, default=None), refused=refused)
    return request.aitop_throttle_counted
