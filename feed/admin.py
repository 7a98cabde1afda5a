"""Sources in the admin: what we fetch and how each source is doing."""

from django.contrib import admin

from feed.models import Source


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "kind",
        "handle",
        "is_active",
        "last_fetched_at",
        "last_status",
        "consecutive_failures",
        "next_fetch_at",
    ]
    list_filter = ["kind", "is_active", "last_status"]
    search_fields = ["name", "slug", "handle", "feed_url", "homepage_url"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = [
        "etag",
        "last_modified",
        "last_fetched_at",
        "last_status",
        "last_http_status",
        "consecutive_failures",
        "next_fetch_at",
        "last_error",
        "last_warning",
        "lease_owner",
        "lease_expires_at",
        "created_at",
        "updated_at",
    ]
    fieldsets = [
        (None, {"fields": ["name", "slug", "kind", "handle", "is_active"]}),
        ("Feed", {"fields": ["feed_url", "homepage_url", "fetch_interval"]}),
        ("Defaults for new items", {"fields": ["default_category", "default_tags", "weight"]}),
        (
            "Health",
            {
                "fields": [
                    "last_fetched_at",
                    "last_status",
                    "last_http_status",
                    "consecutive_failures",
                    "next_fetch_at",
                    "last_error",
                    "last_warning",
                    "etag",
                    "last_modified",
                    "lease_owner",
                    "lease_expires_at",
                    "created_at",
                    "updated_at",
                ],
                "classes": ["collapse"],
            },
        ),
    ]
