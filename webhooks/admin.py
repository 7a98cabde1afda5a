"""Webhooks in the admin: editors register receivers and read the log of every delivery."""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from webhooks.forms import WebhookForm
from webhooks.models import Attempt, Delivery, Webhook
from webhooks.tasks import delivery_retry_now


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    form = WebhookForm
    list_display = ["name", "url", "event_list", "is_active", "deliveries_link"]
    list_filter = ["is_active"]
    search_fields = ["name", "url"]
    readonly_fields = ["created_by", "created_at", "updated_at"]

    @admin.display(description=_("events"))
    def event_list(self, webhook: Webhook) -> str:
        return ", ".join(webhook.events)

    @admin.display(description=_("deliveries"))
    def deliveries_link(self, webhook: Webhook) -> str:
        url = reverse("admin:webhooks_delivery_changelist") + f"?webhook__id__exact={webhook.pk}"
        return format_html('<a href="{}">{}</a>', url, _("log"))

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = ["number", "started_at", "duration_ms", "response_status", "error", "response_body"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """The delivery log: one row per event and receiver, its tries inline."""

    list_display = [
        "created_at",
        "webhook",
        "event",
        "item_id",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
    ]
    list_filter = ["status", "event", "webhook"]
    list_select_related = ["webhook"]
    search_fields = ["=uuid", "=item_id"]
    date_hierarchy = "created_at"
    fields = [
        "webhook",
        "uuid",
        "event",
        "item_id",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
        "created_at",
        "body",
    ]
    readonly_fields = fields
    inlines = [AttemptInline]
    actions = ["retry_now"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        # Read-only, but the log must still be viewable and the action usable.
        return False

    def has_retry_permission(self, request) -> bool:
        return request.user.has_perm("webhooks.change_delivery")

    @admin.action(description=_("Try the selected deliveries again now"), permissions=["retry"])
    def retry_now(self, request, queryset):
        retried = 0
        for delivery in queryset.exclude(status=Delivery.Status.DELIVERED):
            delivery_retry_now(delivery=delivery)
            retried += 1
        self.message_user(
            request,
            ngettext("%(n)d delivery queued again.", "%(n)d deliveries queued again.", retried)
            % {"n": retried},
            messages.SUCCESS,
        )
