"""The OpenAPI schema: drf-spectacular's, plus the refusals every operation can answer with.

Each operation lists the 4xx answers it can give, all in the `Error` shape,
so a client (and schemathesis in CI) can rely on the schema for every status.
"""

from drf_spectacular import openapi
from rest_framework import permissions

_ERROR_REF = {"$ref": "#/components/schemas/Error"}

# status: (when it happens, an example body)
_COMMON = {
    "400": (
        "A parameter cannot be used: a NUL character, a value that is too long, a filter, "
        "cursor or page size that cannot be read, or (for writes) a body field that is wrong.",
        {
            "status": 400,
            "code": "invalid_parameter",
            "message": "Some parameters cannot be used: kind.",
            "fields": {
                "kind": ["Select a valid choice. podcast is not one of the available choices."]
            },
        },
    ),
    "401": (
        "The `Authorization` header holds a token that is not valid (or, for writes, none).",
        {"status": 401, "code": "authentication_failed", "message": "Invalid token.", "fields": {}},
    ),
    "403": (
        "The caller may not do this (the message says why), or a session call lacks CSRF.",
        {
            "status": 403,
            "code": "permission_denied",
            "message": "You do not have permission to perform this action.",
            "fields": {},
        },
    ),
    "404": (
        "Nothing here: no such id or slug, or an item that is not published.",
        {"status": 404, "code": "not_found", "message": "Not found.", "fields": {}},
    ),
    "415": (
        "The body is not JSON (`Content-Type: application/json`).",
        {
            "status": 415,
            "code": "unsupported_media_type",
            "message": 'Unsupported media type "text/plain" in request.',
            "fields": {},
        },
    ),
    "429": (
        "Too many requests: wait the seconds that the `Retry-After` header gives.",
        {
            "status": 429,
            "code": "throttled",
            "message": "Request was throttled. Expected available in 42 seconds.",
            "fields": {},
        },
    ),
}
_WRITE_METHODS = {"post", "put", "patch", "delete"}
_PATH_PARAMETERS = {
    "id": "The item's id.",
    "slug": "The source's slug (Chinese characters allowed).",
}


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's AutoSchema; the views' tags come from their URL's first segment."""

    def get_auth(self) -> list[dict]:
        """Also say that reads need no credentials where the permission lets anyone read."""
        auths = super().get_auth()
        open_reads = any(
            isinstance(perm, permissions.DjangoModelPermissionsOrAnonReadOnly)
            for perm in self.view.get_permissions()
        )
        if open_reads and self.method in permissions.SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths

    def get_tags(self) -> list[str]:
        path = self.path.removeprefix("/api/v1/").strip("/")
        return [path.split("/", 1)[0] or "api"]


def _response(status: str) -> dict:
    description, example = _COMMON[status]
    return {
        "description": description,
        "content": {
            "application/json": {"schema": _ERROR_REF, "examples": {status: {"value": example}}}
        },
    }


def add_error_responses(result, generator, request, public):
    """Postprocessing hook: give every operation the error answers it can produce."""
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and not parameter.get("description"):
                    parameter["description"] = _PATH_PARAMETERS.get(parameter["name"], "")
            responses = operation.setdefault("responses", {})
            statuses = ["400", "401", "429"]
            if method in _WRITE_METHODS:
                statuses += ["403"]
            if "{" in path:
                statuses += ["404"]
            if "requestBody" in operation:
                statuses += ["415"]
            for status in statuses:
                responses.setdefault(status, _response(status))
                if status == "429":
                    responses[status].setdefault("headers", {})["Retry-After"] = {
                        "description": "Seconds to wait before the next request.",
                        "schema": {"type": "integer"},
                    }
    return result
