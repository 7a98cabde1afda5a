"""Strings of other packages that their catalogues lack in Chinese, kept in ours.

Our catalogue (LOCALE_PATHS) is read before any package's, so a translation
here fills a gap in Django's or a library's. Marking the strings here is
what keeps `make messages` (which only collects what our code says) from
dropping them. Nothing imports this module.
"""

from django.utils.translation import gettext_noop as _
from django.utils.translation import ngettext_lazy

DJANGO = [
    # New in Django 6.x; its zh_Hans catalogue does not have them yet.
    _("- Select an option -"),
    _("Filter by %(field_name)s"),
    _("No %s matches the given query."),
    _('The app "%s" could not be found.'),
    ngettext_lazy("…and %(count)d more object.", "…and %(count)d more objects.", "count"),
]

TASKS_DB = [
    # django-tasks-db's verbose names are marked for translation but it ships none.
    _("Task Result"),
    _("Task Results"),
    _("enqueued at"),
    _("started at"),
    _("finished at"),
    _("args kwargs"),
    _("priority"),
    _("task path"),
    _("worker id"),
    _("queue name"),
    _("backend name"),
    _("run after"),
    _("return value"),
    _("exception class path"),
    _("traceback"),
]
