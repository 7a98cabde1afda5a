"""The API's URLs: /api/v1/… for data, /api/schema/, /api/docs/ and /api/redoc/ to read about it."""

from django.urls import include, path, re_path
from rest_framework.routers import DefaultRouter

from api import errors
from api.views.base import RedocView, SchemaView, SwaggerView
from api.views.facets import DayViewSet, TagViewSet
from api.views.items import ItemViewSet
from api.views.sources import SourceViewSet

app_name = "api"

router = DefaultRouter()
router.register("items", ItemViewSet, basename="item")
router.register("sources", SourceViewSet, basename="source")
router.register("tags", TagViewSet, basename="tag")
router.register("days", DayViewSet, basename="day")

urlpatterns = [
    path("v1/", include(router.urls)),
    path("schema/", SchemaView.as_view(), name="schema"),
    path("docs/", SwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", RedocView.as_view(url_name="api:schema"), name="redoc"),
    # Anything else under /api/ is a 404 in the API's error shape, not an HTML page;
    # [\s\S] rather than "." so that a newline (%0A) in the address is caught too.
    re_path(r"^[\s\S]*\Z", errors.not_found),
]
