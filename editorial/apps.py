from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = _("Editorial")
