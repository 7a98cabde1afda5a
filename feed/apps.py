from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = _("Stream")
