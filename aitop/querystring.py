"""A request's query parameters, parsed once per process for each distinct query string.

A warm answer (feed/warm.py, api/cache.py) needs the query's parameters
twice before any view runs: to refuse a NUL in them (aitop/nul.py) and to
key the cache on them. Parsing a query string into `request.GET` costs
20–30 µs when it holds percent-encoded Chinese (Python's `unquote`), about a
tenth of a warm answer, and a site's readers ask for the same few query
strings over and over. So the parameters of each distinct query string are
kept, as Django would parse them, and `request.GET` is left unbuilt until a
view asks for it.
"""

import functools

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest, get_bytes_from_wsgi
from django.http import HttpRequest, QueryDict

# Distinct query strings kept per process, each at most LONGEST bytes (a reader's
# filters and search words; anything longer is parsed each time): about 1 MB at most.
KEPT = 1024
LONGEST = 512

Lists = tuple[tuple[str, tuple[str, ...]], ...]


def query_lists(request: HttpRequest) -> Lists:
    """`request.GET.lists()`, as a tuple of (name, values) in the query's order."""
    if "GET" not in request.__dict__:
        raw = _raw_query(request)
        if raw is not None and len(raw) <= LONGEST:
            return _parsed(raw, request.encoding or settings.DEFAULT_CHARSET)
    # Already parsed (a view read it) or set by hand (a test's request): read that.
    return tuple((name, tuple(values)) for name, values in request.GET.lists())


def _raw_query(request: HttpRequest) -> bytes | str | None:
    """What Django builds `request.GET` from, for the request classes whose GET is lazy."""
    if isinstance(request, WSGIRequest):
        return get_bytes_from_wsgi(request.environ, "QUERY_STRING", "")
    return None


@functools.lru_cache(maxsize=KEPT)
def _parsed(raw: bytes | str, encoding: str) -> Lists:
    # Exactly as WSGIRequest.GET parses it (a TooManyFieldsSent raises, and is not kept).
    query = QueryDict(raw, encoding=encoding)
    return tuple((name, tuple(values)) for name, values in query.lists())
