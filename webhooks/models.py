"""Webhooks: receivers that editors register, each delivery of an event to one, and each try."""

import secrets
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Event(models.TextChoices):
    """What a receiver may subscribe to; sent as the `X-AITOP-Event` header and `event` field."""

    ITEM_PUBLISHED = "item.published", _("An item was published (or featured from a draft)")
    ITEM_FEATURED = "item.featured", _("An item was featured")
    ITEM_UNPUBLISHED = "item.unpublished", _("A public item was taken off the site")


def new_secret() -> str:
    """A signing secret for a new webhook: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


class Webhook(models.Model):
    """A URL that wants to hear about some events, and the secret its bodies are signed with."""

    name = models.CharField(_("name"), max_length=200)
    url = models.URLField(
        _("URL"),
        max_length=1000,
        help_text=_("Receives a POST with a JSON body for each event. Must be a public address."),
    )
    secret = models.CharField(
        _("secret"),
        max_length=200,
        default=new_secret,
        help_text=_(
            "Bodies are signed with HMAC-SHA256 under this secret (header X-AITOP-Signature)."
        ),
    )
    events = models.JSONField(_("events"), default=list)
    is_active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        unknown = (
            sorted(set(self.events) - set(Event.values)) if isinstance(self.events, list) else None
        )
        if unknown is None or unknown:
            raise ValidationError(
                {
                    "events": _("Choose events among: %(events)s.")
                    % {"events": ", ".join(Event.values)}
                }
            )


class Delivery(models.Model):
    """One event on its way to one webhook: its body, as signed, and where it stands.

    The body is frozen when the event happens, so every try sends the same
    bytes under the same delivery id, and a receiver can drop repeats by that id.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RETRYING = "retrying", _("Failed, will retry")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed, gave up")
        CANCELLED = "cancelled", _("Cancelled")

    webhook = models.ForeignKey(
        Webhook, verbose_name=_("webhook"), on_delete=models.CASCADE, related_name="deliveries"
    )
    uuid = models.UUIDField(_("delivery id"), default=uuid.uuid4, unique=True, editable=False)
    event = models.CharField(_("event"), max_length=50, choices=Event.choices)
    # The item this event is about; kept as a plain id so deleting it keeps the log.
    item_id = models.BigIntegerField(_("item id"), null=True, blank=True)
    body = models.TextField(_("body"), help_text=_("The JSON sent, exactly as signed."))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("tries"), default=0)
    next_attempt_at = models.DateTimeField(_("next try"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "retrying", "delivered", "failed", "cancelled"]),
                name="webhook_delivery_status_valid",
            ),
        ]
        indexes = [
            # The sweeper: deliveries still due a try, soonest first.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status__in=["pending", "retrying"]),
                name="webhook_delivery_due_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook}"


class Attempt(models.Model):
    """One try of a delivery: what the receiver answered, or why nothing was sent."""

    delivery = models.ForeignKey(
        Delivery, verbose_name=_("delivery"), on_delete=models.CASCADE, related_name="tries"
    )
    number = models.PositiveSmallIntegerField(_("try"))
    started_at = models.DateTimeField(_("started"))
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), default=0)
    response_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    response_body = models.TextField(_("response (start)"), blank=True)
    error = models.TextField(_("error"), blank=True)
    succeeded = models.BooleanField(_("succeeded"), default=False)

    class Meta:
        verbose_name = _("try")
        verbose_name_plural = _("tries")
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="webhook_attempt_unique"),
        ]

    def __str__(self) -> str:
        return f"#{self.number}"
