"""The language of a public page comes from its URL alone: Chinese at /, English under /en/.

So a page never varies on Accept-Language or Cookie and any shared cache may
hold it. The admin, the API and the editors' pages keep Django's choice (the
language cookie, then Accept-Language). A reader who still carries the
language cookie of the old switch (`/i18n/setlang/`) is redirected once, on
an unprefixed page, to the same page under their language's prefix, when
they arrive from elsewhere (a bookmark, a search): a click on the site's own
language links (same-host Referer) is a choice and is followed as it is.
"""

import functools
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponseRedirect
from django.urls import Resolver404, get_resolver, get_urlconf, resolve, translate_url
from django.urls.resolvers import LocalePrefixPattern, URLResolver
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.deprecation import MiddlewareMixin

# Public, but one for every language (they list both).
PUBLIC_NAMES = ("sitemap", "sitemap-section", "robots")


@functools.cache
def _public_namespaces(urlconf: str) -> frozenset[str]:
    """The namespaces included under `i18n_patterns`: the public site, in each language.

    Read from the URLconf rather than listed here, so an app's pages (the
    stream's, the daily brief's) are public by being mounted there. The
    brief's, missed by a list of one, answered 404 under /en/.
    """
    names = set()
    for pattern in get_resolver(urlconf).url_patterns:
        if isinstance(pattern, URLResolver) and isinstance(pattern.pattern, LocalePrefixPattern):
            names.update(
                included.namespace
                for included in pattern.url_patterns
                if isinstance(included, URLResolver) and included.namespace
            )
    return frozenset(names)


def _is_public(path: str) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    public = _public_namespaces(get_urlconf() or settings.ROOT_URLCONF)
    return match.namespace in public or match.url_name in PUBLIC_NAMES


def _from_this_site(request) -> bool:
    referer = request.headers.get("referer", "")
    return bool(referer) and urlsplit(referer).netloc == request.get_host()


def _cookie_language(request) -> str | None:
    code = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    if code and code != settings.LANGUAGE_CODE and translation.check_for_language(code):
        return translation.get_supported_language_variant(code)
    return None


class PathLocaleMiddleware(MiddlewareMixin):
    """Like Django's LocaleMiddleware, but on public pages the URL alone decides."""

    def process_request(self, request):
        from_path = translation.get_language_from_path(request.path_info)
        # The /en/ prefix only resolves while English is active.
        translation.activate(from_path or settings.LANGUAGE_CODE)
        request.aitop_public = _is_public(request.path_info)
        if not request.aitop_public:
            # The admin, the API, the editors' pages: the cookie, then Accept-Language.
            translation.activate(translation.get_language_from_request(request))
            request.LANGUAGE_CODE = translation.get_language()
            return None
        request.LANGUAGE_CODE = translation.get_language()
        if (
            from_path is None
            and request.method in ("GET", "HEAD")
            and not _from_this_site(request)
            and (code := _cookie_language(request)) is not None
        ):
            target = translate_url(request.get_full_path(), code)
            if target != request.get_full_path():
                redirect = HttpResponseRedirect(target)
                # Only this reader goes there: no shared cache may keep it.
                patch_vary_headers(redirect, ("Cookie",))
                patch_cache_control(redirect, private=True)
                return redirect
        return None

    def process_response(self, request, response):
        if not getattr(request, "aitop_public", False):
            patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
