"""Public pages from a whole-page cache, with validators, both keyed by the publish generation.

A public page is a function of the URL (path and query), the language, the
host, today's date and what readers can see. The last of these is the publish
generation (feed/freshness.py). So `public_cache` keys the rendered page by
the first four and stores the generation it was rendered under: an entry of
an older generation is never served, and a 304 or a warm page costs one cache
round trip for the generation and the page together (with a per-process
cache: one primary-key query for the generation, then the page). Most warm
hits are answered even earlier, before the URL is resolved (feed/warm.py).

Only 200s are stored and given validators, so the view decides every 404 and
400 before a reader can hold an ETag to send back; a matching ETag gets its
304 from the generation alone, stored page or not (`not_modified`). A burst
of requests after a change renders each page once (`render_once`). Bodies
are stored gzipped: public pages hold no secret (no CSRF token, nothing per
reader), so compressing them is safe.
"""

import functools
import gzip
import hashlib
import time
from dataclasses import dataclass
from importlib import metadata

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.utils import timezone, translation
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date

from aitop.days import today_start
from aitop.querystring import query_lists
from feed.freshness import Freshness, generation_current_with

try:
    # A new release may render the same data differently: its pages get new keys.
    _RELEASE = metadata.version("aitop")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    _RELEASE = "dev"

# How long one request may hold the right to render a page before others stop waiting.
RENDER_LOCK_SECONDS = 10
# When a waiting request looks whether the page has been rendered: after 2 ms,
# then twice as long each time up to 20 ms. Pages render in 5-30 ms; a fixed
# 20 ms kept a burst's readers waiting up to twice as long as the render.
RENDER_POLL_FIRST_SECONDS = 0.002
RENDER_POLL_MAX_SECONDS = 0.02


@dataclass(frozen=True)
class CachedPage:
    """A rendered 200, gzipped, with the generation and validators it was rendered under."""

    generation: int
    etag: str
    last_modified: int
    content_type: str
    gzipped: bytes
    # Rendered with the language its URL carries, so feed/warm.py may answer it before
    # the URL is resolved (False for pages whose language follows the reader's choice).
    early: bool = False

    def response(self, request) -> HttpResponse:
        """The stored page, compressed when the reader's client accepts gzip."""
        if _accepts_gzip(request):
            response = HttpResponse(self.gzipped, content_type=self.content_type)
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = HttpResponse(gzip.decompress(self.gzipped), content_type=self.content_type)
        return response


def _accepts_gzip(request) -> bool:
    # META, not request.headers: building that mapping of every header cost more than this.
    accepted = request.META.get("HTTP_ACCEPT_ENCODING", "").lower()
    return any(
        part.split(";")[0].strip() == "gzip" and "q=0" not in part.replace(" ", "")
        for part in accepted.split(",")
    )


def page_key(request) -> str:
    """The cache key of this page: host, path, normalised query, language, release, today."""
    pairs = sorted(
        (name, value) for name, values in query_lists(request) for value in values if value.strip()
    )
    parts = [
        _RELEASE,
        request.get_host(),
        request.path,
        repr(pairs),
        translation.get_language() or "",
        # Day headings say "today" and drop the current year: a new day changes them.
        timezone.localdate().isoformat(),
    ]
    return "aitop:page:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def validators(key: str, state: Freshness) -> tuple[str, int]:
    """A weak ETag (gzipped or not, the same page) and Last-Modified, both only moving forward."""
    digest = hashlib.sha256(f"{key}\n{state.value}".encode()).hexdigest()[:32]
    etag = f'W/"{digest}"'
    # At midnight the headings change although nothing was published.
    return etag, int(max(state.changed_at, today_start()).timestamp())


def public_cache(view):
    """Serve GET/HEAD from the page cache while current; 304 when the reader's copy is current."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        key, state, page = current_page(request)
        if page is None:
            if (unchanged := not_modified(request, key, state)) is not None:
                return unchanged
            page = render_once(request, key, state, lambda: view(request, *args, **kwargs))
            if isinstance(page, HttpResponse):
                # Not a storable 200 (a redirect, a 404, a 400): sent as it is.
                return page
        return page_answer(request, page)

    return wrapper


def current_page(request) -> tuple[str, Freshness, CachedPage | None]:
    """This page's key, the current generation, and the stored page if it is of that generation."""
    key = page_key(request)
    looked_up = getattr(request, "aitop_page_lookup", None)
    if looked_up is not None and looked_up[0] == key:
        # feed/warm.py read them moments ago in this request (and did not answer).
        return looked_up
    state, page = generation_current_with(key)
    request.aitop_page_lookup = (key, state, entry_current(page, state))
    return request.aitop_page_lookup


def page_answer(request, page: CachedPage) -> HttpResponse:
    """The stored page, or a 304 if the reader's copy is current, with its caching headers."""
    response = get_conditional_response(request, etag=page.etag, last_modified=page.last_modified)
    if response is None:
        response = page.response(request)
    return _with_validators(response, etag=page.etag, last_modified=page.last_modified)


def not_modified(request, key: str, state: Freshness) -> HttpResponse | None:
    """A 304 when the reader's ETag is this page's under the current generation; else None.

    The validators are a function of the page's key and the generation alone
    (`validators`), and only a 200 is ever given them (`page_store`): a reader
    who sends them back holds the body this generation renders. So when the
    page is not in the cache (none configured, evicted, another worker's
    locmem) the 304 still costs only the generation's read, not a render.
    If-Modified-Since alone proves no earlier 200 (any later date matches),
    so it is answered by the view, which decides a 404 or a 400 first.
    """
    if "HTTP_IF_NONE_MATCH" not in request.META:
        return None
    etag, last_modified = validators(key, state)
    response = get_conditional_response(request, etag=etag, last_modified=last_modified)
    if response is None or response.status_code != 304:
        return None
    return _with_validators(response, etag=etag, last_modified=last_modified)


def _with_validators(response, *, etag: str, last_modified: int) -> HttpResponse:
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(last_modified)
    response.headers["Cache-Control"] = f"public, max-age={settings.AITOP_PUBLIC_MAX_AGE}"
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


def entry_current(page: CachedPage | None, state: Freshness) -> CachedPage | None:
    """`page` if it was stored under the current generation, else None (never served)."""
    return page if page is not None and page.generation == state.value else None


def render_once(request, key: str, state: Freshness, render, *, store=None):
    """Render and store the page, or wait for the request already rendering it.

    `store(request, key, state, response)` turns a storable response into its
    cache entry (the page's by default; the API keeps its own headers too).
    """
    store = store or _store
    lock = f"{key}:rendering"
    deadline = time.monotonic() + settings.AITOP_RENDER_WAIT_SECONDS
    pause = RENDER_POLL_FIRST_SECONDS
    while not cache.add(lock, 1, RENDER_LOCK_SECONDS):
        if time.monotonic() > deadline:
            # The other renderer is slow or gone: do not keep this reader waiting.
            return store(request, key, state, render())
        time.sleep(pause)
        pause = min(pause * 2, RENDER_POLL_MAX_SECONDS)
        if (page := entry_current(cache.get(key), state)) is not None:
            return page
    try:
        return store(request, key, state, render())
    finally:
        cache.delete(lock)


# gzip's level for stored pages. A stream page of 59 KB: level 3 takes 0.14 ms
# and gives 9.7 KB, level 6 (Django's GZipMiddleware) 0.59 ms and 8.7 KB; a
# page is compressed on every rendering, so a cold page paid 3 % of its CPU
# for the last kilobyte (docs/benchmarks.md, stop 34). nginx's default is 1.
PAGE_GZIP_LEVEL = 3


def page_store(
    key: str, state: Freshness, response, *, kind: type[CachedPage] = CachedPage, **fields
) -> CachedPage | HttpResponse:
    """Store a rendered 200 under `key` as a `kind` with these extra fields; anything else as is.

    An error, a refusal or a response that sets a cookie is sent as it is and never stored.
    """
    if response.status_code != 200 or response.streaming or response.cookies:
        return response
    etag, last_modified = validators(key, state)
    entry = kind(
        generation=state.value,
        etag=etag,
        last_modified=last_modified,
        content_type=response["Content-Type"],
        gzipped=gzip.compress(response.content, compresslevel=PAGE_GZIP_LEVEL),
        **fields,
    )
    cache.set(key, entry, settings.AITOP_PAGE_CACHE_SECONDS)
    return entry


def _store(request, key: str, state: Freshness, response) -> CachedPage | HttpResponse:
    # Set by feed.locale.PathLocaleMiddleware: the URL alone chose the language.
    return page_store(key, state, response, early=getattr(request, "aitop_public", False))
