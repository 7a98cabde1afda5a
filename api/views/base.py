"""What every API view shares: unusable parameters refused before anything else runs.

And what the public reads share: anonymous answers from the page cache (api/cache.py).
"""

from django.conf import settings
from django.utils.csp import CSP
from django.utils.decorators import method_decorator
from django.views.decorators.csp import csp_override
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api.cache import cached_for_anonymous
from api.params import query_and_path_check


class CheckedParametersMixin:
    """Refuse a NUL character or an over-long value in the query string or path with a 400."""

    def initial(self, request, *args, **kwargs):
        query_and_path_check(query=request.query_params, path_kwargs=kwargs, path=request.path)
        super().initial(request, *args, **kwargs)


class CachedForAnonymousMixin:
    """The GET actions in `cached_actions` answer callers without credentials from the cache."""

    cached_actions = ("list", "retrieve")

    @classmethod
    def as_view(cls, actions=None, **initkwargs):
        view = super().as_view(actions, **initkwargs)
        if actions and actions.get("get") in cls.cached_actions:
            return cached_for_anonymous(view)
        return view

    def check_throttles(self, request):
        # api/cache.py counted this anonymous request already: count it once.
        counted = getattr(request._request, "aitop_throttle_counted", None)
        if counted is None:
            return super().check_throttles(request)
        if counted.refused:
            self.throttled(request, counted.wait)
        return None


class SchemaView(CheckedParametersMixin, SpectacularAPIView):
    """The OpenAPI 3 schema of the API (YAML, or JSON by `Accept`)."""


# The site's policy, but the docs' bundles (React, styled-components) write
# style attributes and <style> elements as they render, so styles may be
# inline here; scripts stay our own files (Redoc runs its search in a blob worker).
DOCS_CSP = {
    **settings.SECURE_CSP,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "worker-src": [CSP.SELF, "blob:"],
}


@method_decorator(csp_override(DOCS_CSP), name="dispatch")
class SwaggerView(CheckedParametersMixin, SpectacularSwaggerSplitView):
    """Swagger UI over the schema; its start-up script is a file (`?script`), not inline."""


@method_decorator(csp_override(DOCS_CSP), name="dispatch")
class RedocView(CheckedParametersMixin, SpectacularRedocView):
    """Redoc over the schema, its assets served from our own static files."""
