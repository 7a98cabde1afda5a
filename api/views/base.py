"""What every API view shares: unusable parameters refused before anything else runs."""

from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api.params import query_and_path_check


class CheckedParametersMixin:
    """Refuse a NUL character or an over-long value in the query string or path with a 400."""

    def initial(self, request, *args, **kwargs):
        query_and_path_check(query=request.query_params, path_kwargs=kwargs, path=request.path)
        super().initial(request, *args, **kwargs)


class SchemaView(CheckedParametersMixin, SpectacularAPIView):
    """The OpenAPI 3 schema of the API (YAML, or JSON by `Accept`)."""


class SwaggerView(CheckedParametersMixin, SpectacularSwaggerView):
    """Swagger UI over the schema, its assets served from our own static files."""


class RedocView(CheckedParametersMixin, SpectacularRedocView):
    """Redoc over the schema, its assets served from our own static files."""
