"""API tokens: named, expiring, revocable, stored only as a hash behind a lookup prefix."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ApiTokenQuerySet(models.QuerySet):
    """Tokens by state."""

    def active(self, *, now=None):
        """Tokens that authenticate at `now`: not revoked and not expired."""
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )


class ApiToken(models.Model):
    """A key an integration sends as `Authorization: Token <key>`.

    Only a SHA-256 digest of the key is kept: a copy of the database does not
    let anyone call the API. The key is random (160 bits), so a fast hash is
    as safe as a password hasher here and costs nothing per request. The first
    8 hexadecimal characters of the key are kept in clear as `prefix`, unique,
    so a request finds its row by index and the admin can tell tokens apart.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(_("prefix"), max_length=8, editable=False)
    digest = models.CharField(_("digest"), max_length=64, editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]
        constraints = [
            # The lookup of every authenticated request.
            models.UniqueConstraint(fields=["prefix"], name="api_token_prefix_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def is_active(self, *, now=None) -> bool:
        """Whether the token authenticates at `now`."""
        now = now or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
