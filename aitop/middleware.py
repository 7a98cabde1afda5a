"""Site-wide middleware: the Permissions-Policy header; a 503 when the database is down."""

import logging

from django.conf import settings
from django.db import OperationalError
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

# Seconds a client is asked to wait after a 503 before trying again.
RETRY_AFTER = 30


class PermissionsPolicyMiddleware:
    """Send settings.AITOP_PERMISSIONS_POLICY with every response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", settings.AITOP_PERMISSIONS_POLICY)
        return response


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database answers 503 with Retry-After, not a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError):
            return None
        logger.error("database unavailable: %s", exception)
        return database_unavailable_response(request)


def database_unavailable_response(request):
    """The 503 answer: JSON in the API's error shape under /api/, a short page elsewhere."""
    from django.http import HttpResponse, JsonResponse

    message = _("The site is briefly unavailable. Please try again in a minute.")
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"status": 503, "code": "unavailable", "message": message, "fields": {}},
            status=503,
        )
    else:
        # A static page: rendering it must not need the database that is down.
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response
