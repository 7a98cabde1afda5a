"""Sources: anyone may read the active ones; staff with the permission add and change them."""

from django.db.models import ProtectedError
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets

from api.docs import error_response
from api.errors import Conflict
from api.pagination import Key
from api.params import body_check
from api.serializers.sources import SourceSerializer
from api.views.base import CachedForAnonymousMixin, CheckedParametersMixin
from feed.models import Source

SOURCE_EXAMPLE = {
    "id": 3,
    "slug": "deepseek-github",
    "name": "DeepSeek: GitHub",
    "kind": "blog",
    "handle": "",
    "homepage_url": "https://github.com/deepseek-ai",
    "feed_url": "https://github.com/deepseek-ai.atom",
    "default_category": "model",
    "weight": 70,
    "is_active": True,
    "page_url": "https://aitop.example/?source=deepseek-github",
}


@extend_schema_view(
    list=extend_schema(
        summary="List sources",
        description="Active sources by name; staff who may view sources also see inactive ones.",
        examples=[OpenApiExample("A source", value=SOURCE_EXAMPLE, response_only=True)],
    ),
    retrieve=extend_schema(summary="One source", description="A source by its slug."),
    create=extend_schema(
        summary="Add a source",
        description="Needs the `feed.add_source` permission. The slug must be new.",
    ),
    update=extend_schema(summary="Replace a source", description="Needs `feed.change_source`."),
    partial_update=extend_schema(
        summary="Change a source",
        description="Needs `feed.change_source`. Send only the fields to change; "
        "`is_active: false` stops fetching it.",
    ),
    destroy=extend_schema(
        summary="Delete a source",
        description="Needs `feed.delete_source`. A source that has items cannot be deleted "
        "(409): deactivate it instead.",
        responses={
            204: None,
            409: error_response(
                "The source has items.",
                {
                    "status": 409,
                    "code": "has_items",
                    "message": "“Lab blog” has items, so it cannot be deleted; deactivate it.",
                    "fields": {},
                },
            ),
        },
    ),
)
class SourceViewSet(
    CachedForAnonymousMixin,
    CheckedParametersMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Where items come from."""

    serializer_class = SourceSerializer
    lookup_field = "slug"
    # Any slug, Chinese ones included; a slash never belongs to one.
    lookup_value_regex = r"[^/]+"
    queryset = Source.objects.all()

    def get_queryset(self):
        sources = Source.objects.all()
        if not self.request.user.has_perm("feed.view_source"):
            sources = sources.filter(is_active=True)
        return sources

    def keyset(self, request) -> list[Key]:
        return [Key("name", descending=False, type="str"), Key("id", descending=False)]

    def create(self, request, *args, **kwargs):
        body_check(request.data)
        return super().create(request, *args, **kwargs)

    def update(self, request, *args, **kwargs):
        body_check(request.data)
        return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            instance.delete()
        except ProtectedError:
            raise Conflict(
                _("“%(name)s” has items, so it cannot be deleted; deactivate it instead.")
                % {"name": instance.name},
                code="has_items",
            ) from None
