"""Creating, checking and revoking API tokens; the key is shown once and never stored."""

import datetime
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from api.models import ApiToken

# New keys carry a recognisable prefix (secret scanners look for such);
# keys made by DRF before (40 hexadecimal characters) still work once migrated.
KEY_PREFIX = "aitop_"
KEY_FORM = re.compile(r"(?:aitop_)?([0-9a-f]{40})")
# last_used_at is written at most this often per token, not on every request.
LAST_USED_RESOLUTION = datetime.timedelta(minutes=1)


def key_digest(key: str) -> str:
    """The SHA-256 digest stored for a key."""
    return hashlib.sha256(key.encode()).hexdigest()


def key_prefix(key: str) -> str | None:
    """The lookup prefix of a well-formed key, None for anything else."""
    match = KEY_FORM.fullmatch(key)
    return match.group(1)[:8] if match else None


def token_create(
    *, user, name: str, expires_at: datetime.datetime | None = None
) -> tuple[ApiToken, str]:
    """A new token for `user`, and its key: the only time the key exists in clear."""
    for _attempt in range(5):
        key = KEY_PREFIX + secrets.token_hex(20)
        try:
            with transaction.atomic():
                token = ApiToken.objects.create(
                    user=user,
                    name=name,
                    prefix=key_prefix(key),
                    digest=key_digest(key),
                    expires_at=expires_at,
                )
        except IntegrityError:
            continue  # the 32-bit prefix is taken: draw another key
        return token, key
    raise RuntimeError("could not draw an unused token prefix")


@dataclass(frozen=True)
class TokenCheck:
    """What a presented key turned out to be: the active token, or the user it claimed to be."""

    token: ApiToken | None
    # The owner of the token whose prefix the key carries, even when the key is
    # wrong, expired or revoked: failures are counted against that user.
    claimed_user: object | None


def token_check(*, key: str, now: datetime.datetime | None = None) -> TokenCheck:
    """Check a presented key in one query (two when last_used_at is due)."""
    prefix = key_prefix(key)
    if prefix is None:
        return TokenCheck(token=None, claimed_user=None)
    now = now or timezone.now()
    token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
    if token is None:
        return TokenCheck(token=None, claimed_user=None)
    if not hmac.compare_digest(token.digest, key_digest(key)) or not token.is_active(now=now):
        return TokenCheck(token=None, claimed_user=token.user)
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return TokenCheck(token=token, claimed_user=token.user)


def token_revoke(*, token: ApiToken, at: datetime.datetime | None = None) -> bool:
    """Revoke the token; False when it already was."""
    at = at or timezone.now()
    changed = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=at)
    token.refresh_from_db()
    return bool(changed)
