"""Request rates for anonymous and authenticated callers, read from settings at each request.

DRF's own throttles copy the rates once, when the module is imported; these
read `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]` every time, so a deployment
(or a test) that changes the settings gets the rates it set.
"""

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
