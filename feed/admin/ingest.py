"""Ingestion's records in the admin: the fetch history, tombstones and keyword rules."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from feed.ingest.keywords import keyword_rule_apply, keyword_rule_preview
from feed.ingest.wording import recorded_text
from feed.models import FetchAttempt, KeywordRule, Tombstone


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that ingestion writes: editors look, and may delete, but never edit."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(FetchAttempt)
class FetchAttemptAdmin(ReadOnlyAdmin):
    """The fetch history, newest first."""

    list_display = [
        "started_at",
        "source",
        "status",
        "http_status",
        "items_new",
        "items_updated",
        "items_unchanged",
        "items_skipped",
        "duration",
        "error_text",
    ]
    list_filter = ["status", "source"]
    list_select_related = ["source"]
    # The stored (English) wording: feed.ingest.wording.
    search_fields = ["source__name", "error", "warning"]
    date_hierarchy = "started_at"

    def get_fields(self, request, obj=None):
        # The stored texts give way to their translations, in the same places.
        shown = {"error": "error_text", "warning": "warning_text", "skipped_reasons": "skips_text"}
        return list(
            dict.fromkeys(shown.get(name, name) for name in super().get_fields(request, obj))
        )

    def get_readonly_fields(self, request, obj=None):
        return ["error_text", "warning_text", "skips_text"]

    @admin.display(description=_("error"))
    def error_text(self, attempt: FetchAttempt) -> str:
        return recorded_text(attempt.error)

    @admin.display(description=_("warning"))
    def warning_text(self, attempt: FetchAttempt) -> str:
        return recorded_text(attempt.warning)

    @admin.display(description=_("why entries were skipped"))
    def skips_text(self, attempt: FetchAttempt) -> str:
        reasons = attempt.skipped_reasons or {}
        return "; ".join(f"{count} × {recorded_text(reason)}" for reason, count in reasons.items())


@admin.register(Tombstone)
class TombstoneAdmin(ReadOnlyAdmin):
    """Deleted items that feeds may not bring back; delete a tombstone to allow it again."""

    list_display = ["title", "url", "source", "deleted_at"]
    search_fields = ["title", "url"]
    list_select_related = ["source"]


@admin.register(KeywordRule)
class KeywordRuleAdmin(admin.ModelAdmin):
    """Pattern → tag rules; preview what a rule would tag, and apply it to existing items."""

    list_display = ["pattern", "tag", "is_active", "updated_at"]
    list_editable = ["is_active"]
    list_filter = ["is_active"]
    search_fields = ["pattern", "tag"]
    actions = ["apply_to_existing"]

    class Media:
        js = ["feed/admin/preview.js"]

    @admin.action(description=_("Apply to existing items"), permissions=["change"])
    def apply_to_existing(self, request, queryset):
        for rule in queryset:
            self._apply(request, rule)

    def _apply(self, request, rule: KeywordRule) -> None:
        count = keyword_rule_apply(rule=rule)
        self.message_user(
            request,
            ngettext(
                "“%(rule)s” tagged %(count)d existing item.",
                "“%(rule)s” tagged %(count)d existing items.",
                count,
            )
            % {"rule": rule, "count": count},
        )

    def response_add(self, request, obj, post_url_continue=None):
        if "_apply" in request.POST:
            self._apply(request, obj)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        if "_apply" in request.POST:
            self._apply(request, obj)
        return super().response_change(request, obj)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("preview/", wrap(self.preview_view), name="feed_keywordrule_preview"),
            *super().get_urls(),
        ]

    def preview_view(self, request: HttpRequest):
        """How many existing items the pattern would tag, with a sample; saves nothing."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        pattern = request.POST.get("pattern", "").strip()
        tag = request.POST.get("tag", "").strip()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Preview of a keyword rule"),
            "pattern": pattern,
            "tag": tag,
            "preview": keyword_rule_preview(pattern=pattern, tag=tag) if pattern and tag else None,
        }
        fragment = request.headers.get("X-Requested-With") == "fetch"
        template = (
            "admin/feed/keywordrule/preview_result.html"
            if fragment
            else "admin/feed/keywordrule/preview.html"
        )
        return TemplateResponse(request, template, context)
