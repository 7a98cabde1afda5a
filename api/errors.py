"""One JSON shape for every error the API gives (every 4xx and 5xx), and the exceptions behind it.

    {"status": 409, "code": "duplicate_url", "message": "…", "fields": {}, "existing_id": 7}

`fields` maps a parameter or body field (nested ones dotted: `tags.2`) to
its messages; it is empty when the refusal is about the request as a whole.
"""

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

logger = logging.getLogger(__name__)

# DRF's own name for errors that belong to no field.
NON_FIELD_KEYS = {"non_field_errors", "detail"}


class Conflict(exceptions.APIException):
    """The request is valid but clashes with the data as it is now (409)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = _("The request conflicts with the current state of the resource.")
    default_code = "conflict"

    def __init__(self, detail=None, code=None, **extra: Any):
        super().__init__(detail, code)
        self.extra = extra


class BadParameter(exceptions.ValidationError):
    """A query-string or path parameter the API cannot accept (400), naming it."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors, code="invalid_parameter")


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error details as {"field.sub": ["message", …]}."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(part, dict | list) for part in detail):
            return {prefix: [str(part) for part in detail]} if detail else {}
        flat = {}
        for index, value in enumerate(detail):
            flat.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    return {prefix: [str(detail)]}


def _first_code(detail: Any, default: str) -> str:
    codes = detail
    while isinstance(codes, dict | list) and codes:
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return getattr(codes, "code", None) or default


def error_body(exc: exceptions.APIException) -> dict[str, Any]:
    """The `Error` body for a DRF exception."""
    detail = exc.detail
    fields: dict[str, list[str]] = {}
    messages: list[str] = []
    if isinstance(detail, dict | list):
        for key, values in _flatten(detail).items():
            if key in NON_FIELD_KEYS or key.isdigit() or not key:
                messages.extend(values)
            else:
                fields[key] = values
    else:
        messages.append(str(detail))
    if not messages:
        summary = (
            _("Some parameters cannot be used: %(names)s.")
            if isinstance(exc, BadParameter)
            else _("Some fields are not valid: %(names)s.")
        )
        messages.append(str(summary % {"names": ", ".join(fields)}))
    code = _first_code(detail, exc.default_code)
    if isinstance(exc, BadParameter):
        code = "invalid_parameter"
    elif isinstance(exc, exceptions.ValidationError) and fields:
        # Each field says what is wrong with it; the whole answer is "invalid".
        code = "invalid"
    body = {
        "status": exc.status_code,
        "code": code,
        "message": " ".join(messages),
        "fields": fields,
    }
    body.update(getattr(exc, "extra", {}))
    return body


def exception_handler(exc, context):
    """DRF's handler, with every refusal rewritten into the `Error` shape."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*(exc.args))
    response = drf_exception_handler(exc, context)
    if response is None:
        return server_error_response(exc, context)
    response.data = error_body(exc)
    return response


class ServerError(exceptions.APIException):
    """Anything the API did not expect: a 500 in the `Error` shape, the details in the log."""

    status_code = status.HTTP_500_INTERNAL_SERVER_ERROR
    default_detail = _("Something went wrong on our side; it has been logged.")
    default_code = "server_error"


class Unavailable(exceptions.APIException):
    """The database cannot be reached (503); the caller should try again shortly."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = _("The site is briefly unavailable. Please try again in a minute.")
    default_code = "unavailable"


def server_error_response(exc: Exception, context) -> Response:
    """The 500 (or, with the database down, 503) for an exception no handler knew."""
    set_rollback()
    if isinstance(exc, OperationalError):
        logger.error("database unavailable: %s", exc)
        error = Unavailable()
        headers = {"Retry-After": "30"}
    else:
        request = context.get("request")
        logger.error(
            "API error on %s",
            getattr(request, "path", "?"),
            exc_info=(type(exc), exc, exc.__traceback__),
        )
        error = ServerError()
        headers = {}
    return Response(error_body(error), status=error.status_code, headers=headers)


# Exempt: it changes nothing, and a POST with a session cookie must get this
# JSON 404, not the CSRF middleware's HTML 403.
@csrf_exempt
def not_found(request, *args, **kwargs):
    """Any address under /api/ that names no endpoint: a 404 in the `Error` shape."""
    exc = exceptions.NotFound(_("No API endpoint at %(path)s.") % {"path": request.path})
    return JsonResponse(error_body(exc), status=exc.status_code)
