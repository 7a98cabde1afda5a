"""Token authentication that never sends a malformed key to the database."""

import re

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

# DRF's keys are 40 hexadecimal characters (`Token.generate_key`).
_KEY = re.compile(r"[0-9a-f]{40}")


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`; a key of the wrong form is a 401 without a query."""

    def authenticate_credentials(self, key):
        if not _KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        return super().authenticate_credentials(key)
