"""Request rates for anonymous and authenticated callers, read from settings at each request.

DRF's own throttles copy the rates once, when the module is imported; these
read `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]` every time, so a deployment
(or a test) that changes the settings gets the rates it set.
"""

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
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


def anonymous_count(request) -> Counted:
    """Count a request without credentials against every default throttle, as the view would.

    A cached API answer is still an answer: api/cache.py counts each anonymous
    request here, once, before it is served from the cache or rendered, and
    the view does not count it again (`CachedForAnonymousMixin.check_throttles`).
    Like DRF's own check, a refused request is not recorded.
    """
    counted = getattr(request, "aitop_throttle_counted", None)
    if counted is not None:
        return counted
    caller = _AnonymousCaller(request)
    waits = []
    refused = False
    for throttle_class in api_settings.DEFAULT_THROTTLE_CLASSES:
        throttle = throttle_class()
        if not throttle.allow_request(caller, None):
            refused = True
            if (wait := throttle.wait()) is not None:
                waits.append(wait)
    request.aitop_throttle_counted = Counted(wait=max(waits, default=None), refused=refused)
    return request.aitop_throttle_counted
