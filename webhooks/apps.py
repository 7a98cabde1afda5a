from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = _("Webhooks")
    #: What each editorial role may do here (group names as in `editorial.roles`,
    #: which reads this): register receivers, read the log, retry a delivery.
    role_permissions = {
        role: (
            "webhooks.view_webhook",
            "webhooks.add_webhook",
            "webhooks.change_webhook",
            "webhooks.delete_webhook",
            "webhooks.view_delivery",
            "webhooks.change_delivery",
            "webhooks.view_attempt",
        )
        for role in ("Editors", "Chief editors")
    }

    def ready(self):
        from webhooks.receivers import connect

        connect()
