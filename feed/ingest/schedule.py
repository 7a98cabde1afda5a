"""When to fetch a source next: its interval, the server's wishes, and backoff.

Pure functions of the response headers and the clock, so every rule can be
tested with a fixed `now`. A server's Retry-After, Cache-Control max-age,
Expires and an RSS <ttl> are lower bounds: we never come back sooner than
they allow (up to settings.FETCH_MAX_DELAY, so that a typo in a header cannot
silence a source for years; an editor's "fetch now" is always possible).
"""

import datetime
import hashlib
import math
import random
import re
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import httpx
from django.conf import settings

from aitop.backoff import backoff_seconds
from aitop.days import utc_if_naive

_MAX_AGE = re.compile(r"(?:^|[,\s])(?:s-)?max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


def http_date(value: str) -> datetime.datetime | None:
    """An HTTP date (RFC 9110) as an aware datetime, or None if it cannot be read."""
    try:
        parsed = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return utc_if_naive(parsed)


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


def spread(*, now: datetime.datetime, interval: datetime.timedelta, key: int) -> datetime.datetime:
    """The next fetch about one `interval` from now, at the source's own phase of the interval.

    Each source (by `key`, its id) has a fixed offset within its interval,
    from a hash, and is always fetched at that phase: 10,000 sources added
    at once fall due evenly over the interval after their first fetch,
    instead of all in the same minute again. The result is between half an
    interval and one and a half intervals from now, one interval on average.
    """
    period = max(interval.total_seconds(), 60.0)
    digest = hashlib.blake2b(str(key).encode(), digest_size=8).digest()
    offset = int.from_bytes(digest) / 2**64 * period
    earliest = now.timestamp() + period / 2
    slot = math.ceil((earliest - offset) / period)
    return datetime.datetime.fromtimestamp(slot * period + offset, tz=datetime.UTC)


def interval_adapt(
    *,
    interval: datetime.timedelta,
    lower: datetime.timedelta,
    upper: datetime.timedelta,
    changed: bool,
) -> datetime.timedelta:
    """The next interval: halved after a fetch that brought something, else 1.5 times longer.

    Always within the editor's bounds: a feed that never changes drifts to
    the longest interval in a few fetches, and one that changes every time
    to the shortest.
    """
    lower, upper = min(lower, upper), max(lower, upper)
    proposed = interval / 2 if changed else interval * 1.5
    return max(lower, min(upper, proposed))


def next_fetch_after_success(
    *,
    now: datetime.datetime,
    interval: datetime.timedelta,
    headers: httpx.Headers,
    ttl_minutes: int | None = None,
    spread_key: int | None = None,
) -> datetime.datetime:
    """The next fetch after one that worked (or was not modified).

    With `spread_key` (the source's id), at the source's phase of its
    interval (`spread`); without, exactly one interval from now.
    """
    interval = max(interval, datetime.timedelta(minutes=1))
    ttl = now + datetime.timedelta(minutes=ttl_minutes) if ttl_minutes else None
    regular = (
        spread(now=now, interval=interval, key=spread_key)
        if spread_key is not None
        else now + interval
    )
    return _bounded(
        now,
        regular,
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
    delay = backoff_seconds(
        tries=failures, base=settings.FETCH_BACKOFF_BASE, cap=settings.FETCH_BACKOFF_MAX
    )
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
