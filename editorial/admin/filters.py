"""The review queue's own filters: status (drafts by default) and tag."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from taggit.models import Tag

from feed.models import Item
from feed.paging import recent_item_ids

DRAFT = Item.Status.DRAFT.value
SCHEDULED = "scheduled"
ALL = "all"


class StatusFilter(admin.SimpleListFilter):
    """Drafts unless asked otherwise: the queue opens on what waits for review."""

    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [
            (DRAFT, _("Drafts")),
            (SCHEDULED, _("Scheduled")),
            (Item.Status.PUBLISHED.value, _("Published")),
            (Item.Status.FEATURED.value, _("Featured")),
            (Item.Status.REJECTED.value, _("Rejected")),
            (ALL, _("All")),
        ]

    def value(self) -> str:
        chosen = super().value()
        return chosen if chosen in {value for value, _label in self.lookup_choices} else DRAFT

    def queryset(self, request, queryset):
        chosen = self.value()
        if chosen == ALL:
            return queryset
        if chosen == SCHEDULED:
            return queryset.scheduled()
        return queryset.filter(status=chosen)

    def choices(self, changelist):
        # No "All" entry that drops the parameter: without it the queue means drafts.
        for value, label in self.lookup_choices:
            yield {
                "selected": self.value() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }


class TagFilter(admin.SimpleListFilter):
    """The most used tags, plus whichever tag the address names (tag links in the list)."""

    title = _("tag")
    parameter_name = "tag"
    shown = 30

    def lookups(self, request, model_admin):
        chosen = self.value()
        tags = list(
            # Counted over the newest items only (by id, the primary key): bounded at any size.
            Tag.objects.filter(feed_taggeditem_items__content_object__in=recent_item_ids())
            .annotate(uses=Count("feed_taggeditem_items"))
            .order_by("-uses", "name")
            .values_list("slug", "name")[: self.shown]
        )
        if chosen and chosen not in {slug for slug, _name in tags}:
            tags += list(Tag.objects.filter(slug=chosen).values_list("slug", "name"))
        return tags

    def queryset(self, request, queryset):
        if self.value():
            return queryset.tagged(self.value())
        return queryset
