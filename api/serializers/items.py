"""How items look in the API (and in webhook bodies), and what a caller may send to write them."""

import datetime
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.sources import SourceBriefSerializer
from feed.models import Category, Item, ItemQuerySet, Kind, Source
from stories import api as stories_api
from stories.serializers import HeatBreakdownSerializer, StorySerializer

# Times before or after these cannot be shown in every time zone.
EARLIEST = datetime.datetime(1900, 1, 1, tzinfo=datetime.UTC)
LATEST = datetime.datetime(9998, 12, 31, tzinfo=datetime.UTC)
MAX_TAGS = 20


def items_for_api(queryset: ItemQuerySet) -> ItemQuerySet:
    """Everything `ItemSerializer` reads: the cards' query plus the stories' related rows.

    Not the article's body, which it does not send (see `feed.paging.stream_page`).
    """
    return queryset.for_cards().select_related(*stories_api.RELATED).defer("body")


# What `ItemSerializer` reads of an item and of its source.
_READ = {
    Item: {"id", "source_id", "url", "title", "summary", "recommendation", "authors", "kind"}
    | {"category", "status", "heat", "published_at", "version"},
    Source: {"id", "slug", "name", "kind", "handle"},
}
_UNREAD = [
    *(f.name for f in Item._meta.concrete_fields if f.attname not in _READ[Item]),
    *(f"source__{f.name}" for f in Source._meta.concrete_fields if f.attname not in _READ[Source]),
]


def items_for_reading(queryset: ItemQuerySet) -> ItemQuerySet:
    """`items_for_api` for answers that only show items: no column the payload does not show.

    Half of an item's columns and most of its source's are the review's and
    ingestion's; loading them cost 0.5-0.8 ms of CPU for a list of 50 items
    (docs/benchmarks.md). Writes keep `items_for_api`: the workflow and the
    edits read the item they are given.
    """
    return items_for_api(queryset).defer(*_UNREAD)


def absolute_url(context: dict, path: str) -> str:
    """`path` as a full URL: from the request when there is one, else from AITOP_PUBLIC_URL."""
    request = context.get("request")
    if request is not None:
        return request.build_absolute_uri(path)
    return f"{settings.AITOP_PUBLIC_URL}{path}"


# Writes a time as the generic field does: in the active time zone, "Z" for UTC.
_MOMENT = serializers.DateTimeField()


class _PageUrls:
    """The items' pages as full URLs for one answer: the origin worked out once.

    The same text as `absolute_url(context, item.get_absolute_url())`: the
    path is already a URI (`reverse()` quotes the slug), so what the request
    adds in front of it is the same for every item.
    """

    def __init__(self, context: dict):
        self.origin = absolute_url(context, "/").removesuffix("/")

    def url(self, item: Item) -> str:
        return self.origin + item.get_absolute_url()


class TagSerializer(serializers.Serializer):
    slug = serializers.CharField(help_text="Use it in the `tag` filter.")
    name = serializers.CharField()


class ItemSerializer(serializers.ModelSerializer):
    """A published item as readers see it (plus its status and version, for writers)."""

    page_url = serializers.SerializerMethodField(help_text="The item's page on the site.")
    original_url = serializers.URLField(source="url", help_text="Where the story was published.")
    source = SourceBriefSerializer()
    tags = serializers.SerializerMethodField()
    story = serializers.SerializerMethodField()
    heat_breakdown = serializers.SerializerMethodField()
    featured = serializers.BooleanField(source="is_featured")
    # Declared so the schema says "one of the categories, or empty".
    category = serializers.ChoiceField(
        choices=Category.choices, allow_blank=True, read_only=True, help_text="Empty when unset."
    )

    class Meta:
        model = Item
        fields = [
            "id",
            "page_url",
            "original_url",
            "title",
            "summary",
            "recommendation",
            "authors",
            "source",
            "kind",
            "category",
            "tags",
            "heat",
            "heat_breakdown",
            "story",
            "featured",
            "status",
            "published_at",
            "version",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "published_at": {"help_text": "When it appeared (or will appear) on the site."},
            "version": {"help_text": "Send it back with a PATCH: a stale one is refused (409)."},
        }

    def to_representation(self, item: Item) -> dict[str, Any]:
        """The item's fields, written out: what DRF's generic walk over the fields gives.

        An API page of 50 items spent 4.6 ms of CPU in the generic walk (the
        fields built and deep-copied for every answer, then looked up, checked
        for None and converted one by one, and a reverse() per item), about
        half of a cold answer (docs/benchmarks.md). The declarations above stay
        what the schema reads, and tests/api/test_representation.py checks
        that both ways give the same answer, key for key and in order.
        """
        if type(self) is not ItemSerializer:
            # A subclass declares more fields: let DRF walk them all.
            return super().to_representation(item)
        if getattr(self, "_page_urls", None) is None:
            # Kept by the serializer: a list's items share the one child serializer.
            self._page_urls = _PageUrls(self.context)
        source = item.source
        return {
            "id": item.pk,
            "page_url": self._page_urls.url(item),
            "original_url": item.url,
            "title": item.title,
            "summary": item.summary,
            "recommendation": item.recommendation,
            "authors": item.authors,
            "source": {
                "id": source.pk,
                "slug": source.slug,
                "name": source.name,
                "kind": source.kind,
                "handle": source.handle,
            },
            "kind": item.kind,
            "category": item.category,
            "tags": self.get_tags(item),
            "heat": item.heat,
            "heat_breakdown": self.get_heat_breakdown(item),
            "story": self.get_story(item),
            "featured": item.is_featured,
            "status": item.status,
            "published_at": _MOMENT.to_representation(item.published_at),
            "version": item.version,
        }

    def get_page_url(self, item: Item) -> str:
        return absolute_url(self.context, item.get_absolute_url())

    @extend_schema_field(StorySerializer(allow_null=True))
    def get_story(self, item: Item) -> dict | None:
        return stories_api.item_story(item)

    @extend_schema_field(HeatBreakdownSerializer(allow_null=True))
    def get_heat_breakdown(self, item: Item) -> dict | None:
        return stories_api.item_heat_breakdown(item)

    @extend_schema_field(TagSerializer(many=True))
    def get_tags(self, item: Item) -> list[dict[str, str]]:
        # Reads the rows prefetched by `for_cards()`; by name, so the payload is stable.
        return [{"slug": tag.slug, "name": tag.name} for tag in item.tags_sorted()]


def item_representation(item: Item) -> dict[str, Any]:
    """An item as the API shows it, outside a request (webhook bodies)."""
    fresh = items_for_api(Item.objects.filter(pk=item.pk)).get()
    return ItemSerializer(fresh, context={}).data


class MomentField(serializers.DateTimeField):
    """An ISO 8601 time with its offset, within the years every time zone can show."""

    def to_internal_value(self, value):
        try:
            moment = super().to_internal_value(value)
        except OverflowError:
            self.fail("invalid", format="YYYY-MM-DDThh:mm[:ss][+HH:MM]")
        if not EARLIEST <= moment <= LATEST:
            raise serializers.ValidationError(_("Enter a time between 1900 and 9998."))
        return moment


class StrictFieldsMixin:
    """Refuse body fields the serializer does not know, instead of silently ignoring them."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: [_("This field cannot be written here.")] for name in unknown}
                )
        return super().to_internal_value(data)


def _tag_list() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(max_length=100),
        max_length=MAX_TAGS,
        required=False,
        help_text="Tag names; new ones are created. Chinese names work.",
    )


class ItemWriteFields(StrictFieldsMixin, serializers.Serializer):
    """The fields a caller may set on an item; status and publish time are the workflow's."""

    source = serializers.SlugRelatedField(
        slug_field="slug", queryset=Source.objects.all(), help_text="The source's slug."
    )
    title = serializers.CharField(max_length=500)
    url = serializers.URLField(
        max_length=2000, help_text="The original URL; one item per URL across all sources."
    )
    authors = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    summary = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    recommendation = serializers.CharField(
        required=False, allow_blank=True, max_length=1000, help_text="Why a reader should read it."
    )
    body = serializers.CharField(
        required=False, allow_blank=True, max_length=50000, help_text="HTML; it is sanitised."
    )
    kind = serializers.ChoiceField(
        choices=Kind.choices, required=False, help_text="Defaults to the source's kind."
    )
    category = serializers.ChoiceField(choices=Category.choices, required=False, allow_blank=True)
    tags = _tag_list()
    heat = serializers.IntegerField(min_value=0, max_value=100, required=False)


class ItemSubmitSerializer(ItemWriteFields):
    """A new item: it becomes a draft in the review queue."""


class ItemEditSerializer(ItemWriteFields):
    """Changes to an item, based on the `version` the caller read."""

    version = serializers.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        help_text="The version you read. If someone saved the item since, nothing is "
        "changed and the answer is a 409.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            if name != "version":
                field.required = False


class PublishSerializer(StrictFieldsMixin, serializers.Serializer):
    at = MomentField(
        required=False,
        help_text="Publish from this time on (a future time schedules it); default now.",
    )


class RejectSerializer(StrictFieldsMixin, serializers.Serializer):
    reason = serializers.CharField(max_length=1000, help_text="Why; shown in the item's history.")


class EmptySerializer(StrictFieldsMixin, serializers.Serializer):
    """No fields."""


def revision_payload(revision) -> dict[str, Any]:
    """A proposed revision as the API reports it after a PATCH of a live item."""
    return {
        "id": revision.pk,
        "status": revision.status,
        "fields": sorted(revision.changes),
        "message": str(
            _(
                "The item is live: the change to %(fields)s waits for a chief editor, "
                "who accepts or declines it in the admin."
            )
            % {"fields": ", ".join(sorted(revision.changes))}
        ),
    }


class RevisionSerializer(serializers.Serializer):
    """A proposal waiting for a chief editor (for the schema of a 202)."""

    id = serializers.IntegerField()
    status = serializers.CharField(help_text="`pending` until a chief editor decides.")
    fields = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()


class ItemWithProposalSerializer(ItemSerializer):
    """The item unchanged in its live text, with the revision that waits (the 202 of a PATCH)."""

    proposed_revision = RevisionSerializer(read_only=True)

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "proposed_revision"]
        read_only_fields = fields
