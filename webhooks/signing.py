"""How webhook bodies are signed, and how a receiver checks a signature.

The header is `X-AITOP-Signature: t=<unix time>,v1=<hex>`, where `<hex>` is
HMAC-SHA256 under the webhook's secret of `<unix time>.<body bytes>`. Signing
the time with the body lets a receiver refuse an old message replayed later.
"""

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-AITOP-Signature"
EVENT_HEADER = "X-AITOP-Event"
DELIVERY_HEADER = "X-AITOP-Delivery"
# A receiver should refuse signatures older (or newer) than this many seconds.
DEFAULT_TOLERANCE = 300


def signature_compute(*, secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `timestamp.body` under `secret`."""
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(*, secret: str, body: bytes, timestamp: int) -> str:
    """The value of the signature header for `body` sent at `timestamp`."""
    return f"t={timestamp},v1={signature_compute(secret=secret, timestamp=timestamp, body=body)}"


def signature_verify(
    *,
    secret: str,
    body: bytes,
    header: str,
    now: float | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
) -> bool:
    """Whether `header` signs `body` under `secret`, at a time within `tolerance` of `now`."""
    try:
        parts = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(parts["t"])
        given = parts["v1"]
    except (ValueError, KeyError):
        return False
    now = time.time() if now is None else now
    if abs(now - timestamp) > tolerance:
        return False
    expected = signature_compute(secret=secret, timestamp=timestamp, body=body)
    return hmac.compare_digest(expected, given)
