from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = _("Editorial")

    def ready(self):
        # `feed` must not import `editorial`; it asks registered providers for
        # the demo logins instead.
        from editorial.demo import demo_staff_ensure
        from feed.demo_accounts import demo_logins_register

        demo_logins_register(demo_staff_ensure)
