"""Lockout after failed logins and failed token authentication (django-axes), answered by a 429.

The admin login goes through Django's `authenticate()`, which axes watches on
its own. A token is not a password, so the API's authentication class reports
its failures here: they count per user (the owner of the token whose prefix a
key carries) and address, as the admin login's do.
"""

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings

# The "user" that failures with a key matching no token count against, so one
# address trying random keys is locked out like one guessing a password.
UNKNOWN_TOKEN_USER = "(unknown API token)"  # noqa: S105 (a name, not a secret)


def client_address(request: HttpRequest) -> str | None:
    """The caller's address, read the way the API's throttles read it (AITOP_API_NUM_PROXIES)."""
    remote = request.META.get("REMOTE_ADDR")
    proxies = api_settings.NUM_PROXIES or 0
    forwarded = request.headers.get("x-forwarded-for")
    if proxies == 0 or not forwarded:
        return remote
    hops = forwarded.split(",")
    return hops[-min(proxies, len(hops))].strip()


def retry_after_seconds(request: HttpRequest | None = None) -> int:
    """Seconds a locked-out caller waits: every failure while locked restarts the cool-off."""
    cool_off = get_cool_off(request)
    return int(cool_off.total_seconds()) if cool_off else 0


def lockout_message() -> str:
    """What a locked-out caller is told, in the request's language."""
    return _(
        "Too many failed attempts from this address for this account. "
        "Try again in %(minutes)d minutes, or ask an administrator to unlock it."
    ) % {"minutes": max(1, retry_after_seconds() // 60)}


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """axes' AXES_LOCKOUT_CALLABLE: a 429 with Retry-After, in the API's shape under /api/."""
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"status": 429, "code": "locked_out", "message": lockout_message(), "fields": {}},
            status=429,
        )
    else:
        response = HttpResponse(lockout_message(), status=429, content_type="text/plain")
    response["Retry-After"] = str(retry_after_seconds(request))
    return response


def token_credentials(user) -> dict:
    """The credentials axes counts a token failure against."""
    name = user.get_username() if user is not None else UNKNOWN_TOKEN_USER
    return {settings.AXES_USERNAME_FORM_FIELD: name}


def token_is_locked(request: HttpRequest, *, user) -> bool:
    """Whether this address is locked out for the token's user."""
    return AxesProxyHandler.is_locked(request, token_credentials(user))


def token_failure_record(request: HttpRequest, *, user) -> None:
    """Count one failed token authentication from this address against the user."""
    user_login_failed.send(sender=__name__, credentials=token_credentials(user), request=request)
