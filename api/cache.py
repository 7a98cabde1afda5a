"""Anonymous API answers from the page cache, keyed by the publish generation like public pages.

What a caller without credentials reads (the item list and items, sources,
the tags and days facets) is the same for every such caller and changes only
when the publish generation moves (feed/freshness.py). So those answers are
stored as public pages are (feed/conditional.py): under a key of everything
the body depends on, with the generation they were rendered under, a weak
ETag and Last-Modified derived from it, and a guard that renders a burst
after a change once. A warm hit is answered before the session and the
resolver (`AnonymousAnswerMiddleware`); otherwise the view's wrapper
(`cached_for_anonymous`) reuses that read.

A request with any `Authorization` header or a session cookie is never
answered from this cache and never stored into it: a token may belong to an
editor who sees drafts. Every anonymous request, cached or not, is counted
against the anonymous rates (api/throttling.py), once.
"""

import functools
import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db import OperationalError
from django.http import HttpResponse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers

from aitop.nul import nul_parameter
from aitop.querystring import query_lists
from api.throttling import anonymous_count, anonymous_count_reading, anonymous_throttles
from feed import freshness
from feed.conditional import (
    _RELEASE,
    CachedPage,
    entry_current,
    not_modified,
    page_answer,
    page_store,
    render_once,
)
from feed.freshness import Freshness

# Every path whose GET answers may be cached (the views wrapped by `cached_for_anonymous`).
CACHED_PREFIX = "/api/v1/"
# Besides what the view varies on: a shared cache must not hand a caller with
# a token (who may see drafts) the anonymous answer, nor gzip to a client without it.
VARY = ("Accept-Encoding", "Authorization", "Cookie")


@dataclass(frozen=True)
class CachedAnswer(CachedPage):
    """A stored anonymous API answer: the page's fields plus the view's own headers."""

    allow: str = ""
    vary: str = ""


def is_anonymous(request) -> bool:
    """No credentials at all: no Authorization header (even a wrong one), no session cookie."""
    return (
        "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


def answer_key(request) -> str:
    """Everything an anonymous answer's body depends on, hashed.

    The query's pairs stay in the order given: the `next` and `previous`
    links repeat them in that order. `Accept` picks the renderer and its
    parameters (`indent`); the language picks the messages.
    """
    parts = [
        _RELEASE,
        request.scheme,
        request.get_host(),
        request.path,
        repr([(name, list(values)) for name, values in query_lists(request)]),
        request.META.get("HTTP_ACCEPT", "").strip(),
        translation.get_language() or "",
    ]
    return "aitop:api:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def current_answer(request) -> tuple[str, Freshness, CachedAnswer | None]:
    """This answer's key, the current generation, and the stored answer if it is current."""
    key = answer_key(request)
    looked_up = getattr(request, "aitop_api_lookup", None)
    if looked_up is not None and looked_up[0] == key:
        return looked_up
    state, entry = freshness.generation_current_with(key)
    request.aitop_api_lookup = (key, state, entry_current(entry, state))
    return request.aitop_api_lookup


def answer(request, entry: CachedAnswer, *, also_vary: tuple[str, ...] = ()) -> HttpResponse:
    """The stored answer, or a 304 if the caller's copy is current, with the view's headers.

    `also_vary`: what the middleware the answer skips would add to Vary.
    """
    response = page_answer(request, entry)
    if entry.allow and response.status_code != 304:
        # A 304 repeats the validators and what caches key on (Vary), not the 200's Allow.
        response.headers["Allow"] = entry.allow
    # The view's Vary replaces the page's, then ours are added (`_vary`).
    response.headers["Vary"] = _vary(entry.vary or response.get("Vary", ""), VARY + also_vary)
    return response


@functools.lru_cache(maxsize=64)
def _vary(header: str, added: tuple[str, ...]) -> str:
    """`header` with `added` patched in as Django does it, worked out once per pair.

    Two patch_vary_headers() on every warm answer cost ~9 µs; the stored
    answers carry a handful of distinct Vary headers between them.
    """
    response = HttpResponse()
    if header:
        response.headers["Vary"] = header
    patch_vary_headers(response, added)
    return response.headers["Vary"]


def _not_modified(request, key: str, state: Freshness) -> HttpResponse | None:
    """A 304 from the validators alone, stored answer or not (feed.conditional.not_modified)."""
    response = not_modified(request, key, state)
    if response is not None:
        # The Vary every cached view's answer carries: DRF's "Accept" (each has two
        # renderers), then ours.
        response.headers["Vary"] = "Accept"
        patch_vary_headers(response, VARY)
    return response


def _store(request, key: str, state: Freshness, response) -> CachedAnswer | HttpResponse:
    if hasattr(response, "render") and not response.is_rendered:
        response.render()
    # An error, a refusal, a 429: sent as it is, never stored.
    return page_store(
        key,
        state,
        response,
        kind=CachedAnswer,
        # The language comes from the request's headers, which the key holds.
        early=True,
        allow=response.get("Allow", ""),
        vary=response.get("Vary", ""),
    )


def cached_for_anonymous(view):
    """Wrap an API view: an anonymous GET/HEAD is counted, then served from the cache or stored."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if not is_anonymous(request):
            response = view(request, *args, **kwargs)
            # What a token or a session reads (drafts, perhaps) is for that caller alone.
            patch_cache_control(response, private=True)
            return response
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        if anonymous_count(request).refused:
            return view(request, *args, **kwargs)  # the view answers the 429
        key, state, entry = current_answer(request)
        if entry is None:
            if (unchanged := _not_modified(request, key, state)) is not None:
                return unchanged
            entry = render_once(
                request, key, state, lambda: view(request, *args, **kwargs), store=_store
            )
            if isinstance(entry, HttpResponse):
                return entry
        return answer(request, entry)

    return wrapper


class AnonymousAnswerMiddleware:
    """Answer a current cached anonymous API GET before the session, the resolver and DRF run."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return _early_answer(request) or self.get_response(request)


def _early_answer(request):
    if request.method not in ("GET", "HEAD") or not request.path_info.startswith(CACHED_PREFIX):
        return None
    if not is_anonymous(request) or nul_parameter(request) is not None:
        return None
    # As feed.locale.PathLocaleMiddleware does for the API (the key reads it).
    translation.activate(translation.get_language_from_request(request))
    key = answer_key(request)
    # The generation and the answer read, and the caller counted against the
    # rates, in one round trip with Redis (the view takes that count: once).
    count_reading = functools.partial(
        anonymous_count_reading, request, anonymous_throttles(request)
    )
    try:
        state, found = freshness.generation_current_with_many([key], read=count_reading)
    except OperationalError:
        return None  # the view's path answers the 503
    entry = entry_current(found.get(key), state)
    request.aitop_api_lookup = (key, state, entry)
    if entry is None or anonymous_count(request).refused:
        return None  # the view renders it, or answers the 429
    # What the middleware below adds to an API answer (tests/api/test_cache.py compares them).
    response = answer(request, entry, also_vary=("Accept-Language",))
    response.headers["Content-Language"] = translation.get_language()
    response.headers["Content-Length"] = str(len(response.content))
    response.headers["X-Frame-Options"] = settings.X_FRAME_OPTIONS.upper()
    return response
