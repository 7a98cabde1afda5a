"""Token authentication against hashed API tokens, with lockout after repeated failures."""

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from api import lockout
from api.tokens import key_prefix, token_check


class LockedOut(exceptions.Throttled):
    """Too many failed authentications from this address for this user (429 with Retry-After)."""

    default_code = "locked_out"

    def __init__(self):
        super().__init__(wait=lockout.retry_after_seconds(), detail=lockout.lockout_message())


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`: a malformed key costs no token query; failures lock out.

    A right key costs one query (two when its last use is due to be written).
    """

    def authenticate(self, request):
        # DRF hands authenticate_credentials() the key alone; lockout needs the request.
        self.request = request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        request = self.request._request
        check = token_check(key=key) if key_prefix(key) else None
        if check is not None and check.token is not None:
            # A right key is never refused for others' failures: 160 random bits
            # cannot be guessed, so the lockout only has to stop the guessing.
            if not check.token.user.is_active:
                raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
            return (check.token.user, check.token)
        user = check.claimed_user if check else None
        locked = lockout.token_is_locked(request, user=user)
        lockout.token_failure_record(request, user=user)
        if locked:
            raise LockedOut()
        raise exceptions.AuthenticationFailed(_("Invalid token."))
