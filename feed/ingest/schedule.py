"""When to fetch a source next: its interval, the server's wishes, and backoff.

Pure functions of the response headers and the clock, so every rule can be
tested with a fixed `now`. A server's Retry-After, Cache-Control max-age,
Expires and an RSS <ttl> are lower bounds: we never come back sooner than
they allow (up to settings.FETCH_MAX_DELAY, so that a typo in a header cannot
silence a source for years; an editor's "fetch now" is always possible).
"""

import datetime
import random
import re
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import httpx
from django.conf import settings

_MAX_AGE = re.compile(r"(?:^|[,\s])(?:s-)?max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


def http_date(value: str) -> datetime.datetime | None:
    """An HTTP date (RFC 9110) as an aware datetime, or None if it cannot be read."""
    try:
        parsed = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed


def retry_after_from(headers: httpx.Headers, *, now: datetime.datetime) -> datetime.datetime | None:
    """The time a Retry-After header (seconds, or an HTTP date) asks us to wait for."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return now + datetime.timedelta(seconds=int(value))
    return http_date(value)


def fresh_until_from(headers: httpx.Headers, *, now: datetime.datetime) -> datetime.datetime | None:
    """Until when the response is fresh: Cache-Control max-age, else Expires."""
    match = _MAX_AGE.search(headers.get("cache-control", ""))
    if match:
        return now + datetime.timedelta(seconds=int(match.group(1)))
    expires = headers.get("expires", "")
    return http_date(expires) if expires else None


def _bounded(now: datetime.datetime, *candidates: datetime.datetime | None) -> datetime.datetime:
    """The latest of the candidates, but never later than FETCH_MAX_DELAY from now."""
    latest = max((c for c in candidates if c is not None), default=now)
    return min(latest, now + datetime.timedelta(seconds=settings.FETCH_MAX_DELAY))


def next_fetch_after_success(
    *,
    now: datetime.datetime,
    interval: datetime.timedelta,
    headers: httpx.Headers,
    ttl_minutes: int | None = None,
) -> datetime.datetime:
    """The next fetch after one that worked (or was not modified)."""
    ttl = now + datetime.timedelta(minutes=ttl_minutes) if ttl_minutes else None
    return _bounded(
        now,
        now + max(interval, datetime.timedelta(minutes=1)),
        fresh_until_from(headers, now=now),
        retry_after_from(headers, now=now),
        ttl,
    )


def backoff_delay(*, failures: int, rng: random.Random | None = None) -> datetime.timedelta:
    """Exponential backoff after `failures` failures in a row: capped, with jitter.

    The jitter (up to 20% shorter) spreads sources that failed together, say
    when one host was down, so they do not all come back in the same second.
    """
    rng = rng or random
    exponent = min(max(failures, 1) - 1, 32)
    delay = min(settings.FETCH_BACKOFF_MAX, settings.FETCH_BACKOFF_BASE * 2**exponent)
    return datetime.timedelta(seconds=delay * rng.uniform(0.8, 1.0))


def next_fetch_after_failure(
    *,
    now: datetime.datetime,
    failures: int,
    headers: httpx.Headers,
    rng: random.Random | None = None,
) -> datetime.datetime:
    """The next fetch after a failure: the backoff, or later if Retry-After says so."""
    return _bounded(
        now,
        now + backoff_delay(failures=failures, rng=rng),
        retry_after_from(headers, now=now),
    )


def host_key(url: str) -> str:
    """The politeness key of a URL: its host name and port (`example.com:443`)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = 443 if parts.scheme.lower() == "https" else 80
    return f"{host}:{port}"


def host_gap(key: str) -> datetime.timedelta:
    """The minimum time between two requests to one host (FETCH_HOST_GAPS, else the default)."""
    host = key.rsplit(":", 1)[0]
    seconds = settings.FETCH_HOST_GAPS.get(host, settings.FETCH_HOST_GAP)
    return datetime.timedelta(seconds=seconds)
