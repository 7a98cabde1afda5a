"""A current public page answered from the page cache before the URL resolver and the session run.

A public page is the same for every reader and everything its cache key
depends on is in the request (feed/conditional.py): the host, the path, the
query, the language that the path carries, today. So once it is stored, the
session, CSRF, authentication, messages and the resolver only cost time: on a
warm hit they were most of it. `WarmPageMiddleware` sits just inside the
middleware that adds headers to every answer (security, CSP,
Permissions-Policy) and whitenoise. It answers a GET or HEAD whose page is
stored under the current generation, rendered for a URL whose language the
path alone decides, with exactly the response the view would give. Anything
else goes down the stack as before: a path that holds no page (the admin,
the API: `AITOP_WARM_SKIP_PREFIXES`, without a cache read), a miss or an
old page (then the view reuses what this read), a reader with a session or language cookie (the
session, or the redirect to their language, may make it differ), a NUL (the
view's 400 names it).
"""

from django.conf import settings
from django.db import OperationalError
from django.utils import translation

from aitop.nul import nul_parameter
from feed.conditional import current_page, page_answer


class WarmPageMiddleware:
    """Answer a current cached public page without going further down the middleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return _warm_answer(request) or self.get_response(request)


def _warm_answer(request):
    if request.method not in ("GET", "HEAD") or _reader_cookie(request):
        return None
    if request.path_info.startswith(settings.AITOP_WARM_SKIP_PREFIXES):
        return None
    if nul_parameter(request) is not None:
        return None
    # As feed.locale.PathLocaleMiddleware does first (and the page key reads it).
    translation.activate(
        translation.get_language_from_path(request.path_info) or settings.LANGUAGE_CODE
    )
    try:
        _key, _state, page = current_page(request)
    except OperationalError:
        # Reading the generation's row failed: the view's path answers the 503.
        return None
    if page is None or not page.early:
        return None
    response = page_answer(request, page)
    _inner_headers(response)
    return response


def _reader_cookie(request) -> bool:
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME in cookies or settings.LANGUAGE_COOKIE_NAME in cookies


def _inner_headers(response) -> None:
    """What the middleware below this one adds to a public page (tests/feed/test_warm.py)."""
    # feed.locale.PathLocaleMiddleware (a public page: no Vary: Accept-Language).
    response.headers["Content-Language"] = translation.get_language()
    # CommonMiddleware.
    response.headers["Content-Length"] = str(len(response.content))
    # XFrameOptionsMiddleware.
    response.headers["X-Frame-Options"] = settings.X_FRAME_OPTIONS.upper()
