"""Items in the admin: where editors read and correct what came in."""

from django.contrib import admin

from feed.models import Item


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["title", "source", "kind", "category", "status", "heat", "published_at"]
    list_filter = ["status", "kind", "category", "source"]
    search_fields = ["title", "summary", "url", "authors"]
    list_select_related = ["source"]
    date_hierarchy = "published_at"
    ordering = ["-created_at", "-id"]
    raw_id_fields = ["reviewed_by", "submitted_by"]
    # Status and publish time change only through the editorial workflow.
    readonly_fields = [
        "status",
        "published_at",
        "guid",
        "original_published_at",
        "clicks",
        "fetched_at",
        "edited_fields",
        "reviewed_by",
        "reviewed_at",
        "submitted_by",
        "created_at",
        "updated_at",
        "version",
    ]
