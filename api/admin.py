"""API tokens in the admin: create (the key is shown once), see when each was used, revoke."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework.authtoken.models import TokenProxy

from api.models import ApiToken
from api.tokens import token_create, token_revoke

# DRF's plain-text tokens are migrated into ApiToken (api/migrations); their
# admin would only make new plain-text ones.
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens by user; the key exists only in the message shown after adding one."""

    list_display = ["name", "user", "prefix", "created_at", "expires_at", "last_used_at", "state"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter), "expires_at"]
    search_fields = ["name", "prefix", "user__username"]
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    autocomplete_fields = []
    actions = ["revoke"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["user", "name", "expires_at"]
        return ["user", "name", "prefix", "created_at", "expires_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["user", *self.readonly_fields]

    @admin.display(description=_("state"))
    def state(self, token: ApiToken) -> str:
        if token.revoked_at:
            return str(_("revoked"))
        if not token.is_active():
            return str(_("expired"))
        return str(_("active"))

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        token, key = token_create(user=obj.user, name=obj.name, expires_at=obj.expires_at)
        # The admin goes on with `obj` (its history entry, the redirect): make it the saved row.
        obj.pk, obj.prefix, obj.digest, obj.created_at = (
            token.pk,
            token.prefix,
            token.digest,
            token.created_at,
        )
        obj._state.adding, obj._state.db = False, token._state.db
        messages.warning(
            request,
            _("The key of “%(name)s” is %(key)s — copy it now: it is never shown again.")
            % {"name": token.name, "key": key},
        )
        return None

    @admin.action(description=_("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request, queryset):
        revoked = sum(token_revoke(token=token) for token in queryset)
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", revoked)
            % {"count": revoked},
        )
