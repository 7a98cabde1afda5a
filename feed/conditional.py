"""ETag and Last-Modified for public pages and feeds, from one aggregate query.

Every public page is a function of the visible items (and their sources), the
language, the query string and today's date. One aggregate over the visible
items changes whenever any of them is published, unpublished, edited,
featured, re-scored or has its source renamed, so it serves as the validator
of every page: a 304 costs one query, a 200 one more than the page itself.
"""

import datetime
import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

from django.core.cache import cache
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone, translation
from django.utils.cache import (
    get_conditional_response,
    patch_cache_control,
    patch_vary_headers,
)
from django.utils.http import http_date, quote_etag

from feed.models import Item

try:
    # A new release may render the same data differently: its pages get new ETags.
    _RELEASE = metadata.version("aitop")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    _RELEASE = "dev"


# Remembered parts expire anyway after a day; a change to the desk replaces them sooner.
CACHE_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class Stamp:
    """What the visible items look like right now, in a few numbers."""

    count: int
    featured: int
    versions: int
    heat: int
    last_modified: datetime.datetime | None

    def token(self) -> str:
        latest = self.last_modified.isoformat() if self.last_modified else "-"
        return f"{self.count}:{self.featured}:{self.versions}:{self.heat}:{latest}"


def visible_stamp(*, now: datetime.datetime | None = None) -> Stamp:
    """The validator of every public page, in one query over the visible items."""
    values = Item.objects.visible(now=now).aggregate(
        count=Count("id"),
        featured=Count("id", filter=Q(status=Item.Status.FEATURED)),
        versions=Sum("version"),
        heat=Sum("heat"),
        updated=Max("updated_at"),
        # A scheduled item becomes visible at its publish time, after its last edit.
        published=Max("published_at"),
        source_updated=Max("source__updated_at"),
    )
    moments = [values[key] for key in ("updated", "published", "source_updated") if values[key]]
    return Stamp(
        count=values["count"],
        featured=values["featured"],
        versions=values["versions"] or 0,
        heat=values["heat"] or 0,
        last_modified=max(moments) if moments else None,
    )


def page_etag(request, stamp: Stamp) -> str:
    """A strong ETag for this URL, in this language, today, over this stamp."""
    parts = [
        _RELEASE,
        request.get_full_path(),
        translation.get_language() or "",
        # Day headings drop the year in the current year; a new day may change them.
        timezone.localdate().isoformat(),
        stamp.token(),
    ]
    return quote_etag(hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32])


def conditional_on_visible_items(view):
    """Answer GET/HEAD with 304 when the reader's copy is current; label 200s for next time."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        stamp = visible_stamp()
        # The view may remember costly parts under it: see `cached_while_unchanged`.
        request.visible_stamp = stamp
        etag = page_etag(request, stamp)
        last_modified = int(stamp.last_modified.timestamp()) if stamp.last_modified else None
        response = get_conditional_response(request, etag=etag, last_modified=last_modified)
        if response is None:
            response = view(request, *args, **kwargs)
        if response.status_code in (200, 304):
            response.headers["ETag"] = etag
            if last_modified is not None:
                # Our validator, not the feed framework's newest-item date.
                response.headers["Last-Modified"] = http_date(last_modified)
        # Keep a copy, but ask us before using it: the page changes when the desk does.
        patch_cache_control(response, no_cache=True)
        # The language comes from a cookie or from Accept-Language.
        patch_vary_headers(response, ("Cookie", "Accept-Language"))
        return response

    return wrapper


def cached_while_unchanged[T](request, key: str, compute: Callable[[], T]) -> T:
    """`compute()`, remembered in the cache until any visible item changes.

    For parts of a page that cost a scan of every matching item (the tag
    facets): the key joins `key` with the request's stamp, so the first
    request after a change computes afresh and the others reuse it. Without a
    stamp (a view not under `conditional_on_visible_items`) it just computes.
    """
    stamp = getattr(request, "visible_stamp", None)
    if stamp is None:
        return compute()
    digest = hashlib.sha256(f"{_RELEASE}\n{key}\n{stamp.token()}".encode()).hexdigest()
    cache_key = f"aitop:part:{digest}"
    value = cache.get(cache_key)
    if value is None:
        value = compute()
        cache.set(cache_key, value, CACHE_SECONDS)
    return value
