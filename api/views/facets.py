"""Tags and days of the filtered stream, with their counts; only published items are counted."""

from django.conf import settings
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import mixins, viewsets
from rest_framework.response import Response

from api.docs import FILTERS
from api.errors import BadParameter
from api.filtering import items_filtered
from api.pagination import Key
from api.serializers.facets import DayCountSerializer, TagCountSerializer
from api.views.base import CachedForAnonymousMixin, CheckedParametersMixin
from feed.models import Item

TAG_LIMIT_DEFAULT = 100
TAG_LIMIT_MAX = 500


class TagViewSet(CachedForAnonymousMixin, CheckedParametersMixin, viewsets.GenericViewSet):
    """The tags of the filtered stream, most used first."""

    queryset = Item.objects.none()
    pagination_class = None

    @extend_schema(
        summary="Tags with counts",
        description="The tags that the newest published items (AITOP_FACET_WINDOW, default 500) "
        "under the given filters carry, most used "
        "first, with how many items carry each: the facet beside the stream.",
        parameters=[
            *FILTERS,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": TAG_LIMIT_MAX},
                description=f"How many tags (default {TAG_LIMIT_DEFAULT}).",
            ),
        ],
        responses={200: TagCountSerializer(many=True)},
        examples=[
            OpenApiExample(
                "Tags",
                response_only=True,
                value=[{"slug": "分布式训练", "name": "分布式训练", "count": 12}],
            )
        ],
    )
    def list(self, request):
        limit = _limit(request.query_params.get("limit", ""))
        tags = items_filtered(request, Item.objects.visible()).tag_counts(
            window=settings.AITOP_FACET_WINDOW
        )[:limit]
        return Response(TagCountSerializer(tags, many=True).data)


def _limit(raw: str) -> int:
    raw = raw.strip()
    if not raw:
        return TAG_LIMIT_DEFAULT
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= TAG_LIMIT_MAX:
        raise BadParameter(
            {"limit": [_("Enter a whole number from 1 to %(max)d.") % {"max": TAG_LIMIT_MAX}]}
        )
    return int(raw)


class DayViewSet(
    CachedForAnonymousMixin, CheckedParametersMixin, mixins.ListModelMixin, viewsets.GenericViewSet
):
    """The days of the filtered stream, newest first, each with its number of items."""

    queryset = Item.objects.none()
    serializer_class = DayCountSerializer

    def keyset(self, request) -> list[Key]:
        return [Key("day", type="date")]

    def get_queryset(self):
        return (
            items_filtered(self.request, Item.objects.visible())
            .annotate(day=TruncDate("published_at", tzinfo=timezone.get_current_timezone()))
            .order_by()
            .values("day")
            .annotate(count=Count("id"))
        )

    @extend_schema(
        summary="Days with counts",
        description="Each day (in the site's time zone) that has published items under the "
        "given filters, newest first, with how many: the stream's day headings.",
        parameters=FILTERS,
        examples=[
            OpenApiExample(
                "Days",
                response_only=True,
                value={
                    "next": None,
                    "previous": None,
                    "results": [{"date": "2026-06-19", "count": 31}],
                },
            )
        ],
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)
