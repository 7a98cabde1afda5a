"""The admin's form for a webhook: events as checkboxes, the URL checked against the guard."""

import ipaddress
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from aitop import netguard
from webhooks.models import Event, Webhook


def webhook_url_refusal(url: str) -> str | None:
    """Why `url` can never receive webhooks (not http(s), or a literal non-public address).

    Host names are checked again at every delivery, where the network guard
    resolves them; this catches at once what can be seen in the URL itself.
    """
    refusal = netguard.url_refusal(url)
    if refusal in (netguard.URL_UNREADABLE, netguard.URL_SCHEME):
        return str(_("Use an http:// or https:// URL."))
    if refusal == netguard.URL_NO_HOST:
        return str(_("The URL has no host."))
    host = urlsplit(url).hostname.strip("[]")
    allowed = {entry.strip("[]").lower() for entry in settings.WEBHOOK_ALLOW_HOSTS}
    if host.lower() in allowed:
        return None
    if host.lower() in {"localhost", "localhost.localdomain"} or host.lower().endswith(
        ".localhost"
    ):
        return str(_("The address is loopback: webhooks go to public addresses only."))
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    reason = netguard.address_refusal(ip)
    if reason:
        return str(
            _("The address is %(reason)s: webhooks go to public addresses only.")
            % {"reason": reason}
        )
    return None


class WebhookForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        label=_("events"),
        choices=Event.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("The events this URL receives."),
    )

    class Meta:
        model = Webhook
        fields = ["name", "url", "events", "secret", "is_active"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        if (reason := webhook_url_refusal(url)) is not None:
            raise ValidationError(reason)
        return url
