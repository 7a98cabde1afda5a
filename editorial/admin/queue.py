"""The review queue's columns, order and help: what an editor scans all day.

At 1280 px the queue shows title with a summary excerpt, source, story, tags,
category, heat, state and the one-click decisions without a horizontal
scroll. Chief editors see drafts an editor marked "ready for a chief" first.
The "story" column is a slot: `story` may be replaced by the stories app.
"""

from django.contrib import admin
from django.db.models import Exists, OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from editorial import workflow
from editorial.admin.decisions import REJECT_REASONS, role_note
from editorial.admin.filters import ALL, DRAFT, StatusFilter
from editorial.models import ItemRecommendation, LogAction
from feed.models import Item

#: The queue's keyboard shortcuts (queue.js reads the keys from data-key attributes).
SHORTCUTS = (
    ("j", gettext_lazy("next item")),
    ("k", gettext_lazy("previous item")),
    ("o", gettext_lazy("open the item")),
    ("p", gettext_lazy("publish")),
    ("f", gettext_lazy("feature")),
    ("r", gettext_lazy("reject with the reason chosen in its row")),
)
EXCERPT_CHARS = 140


class QueueColumnsMixin:
    """Columns, order and page help of the item list."""

    def queue_order(self, request, queryset):
        """Annotate what the columns and the chiefs' order read, in the list's one query."""
        marks = ItemRecommendation.objects.filter(item=OuterRef("pk"))
        return queryset.annotate(
            is_recommended=Exists(marks), recommended_note=Subquery(marks.values("note")[:1])
        )

    def get_ordering(self, request):
        if workflow.user_may(request.user, LogAction.PUBLISH):
            # An expression, not the list's annotation: other admins order their
            # item pickers by this too (BriefChoice's item), on a plain queryset.
            recommended = Exists(ItemRecommendation.objects.filter(item=OuterRef("pk")))
            return [recommended.desc(), "-created_at", "-id"]
        return super().get_ordering(request)

    def get_list_display(self, request):
        names = list(super().get_list_display(request))
        if "decide" in names:
            names[names.index("decide")] = self._decide_column(request)
        return names

    def queue_context(self, request) -> dict:
        """The search note, the role sentence and the shortcuts, for the queue's template."""
        chosen = request.GET.get(StatusFilter.parameter_name, DRAFT)
        labels = dict(StatusFilter(request, {}, Item, self).lookup_choices)
        label = labels.get(chosen, labels[DRAFT])
        if chosen == ALL:
            searching = _("Search looks through items in every state.")
        else:
            searching = _(
                "Search looks only through: %(state)s (pick “All” under status to search "
                "every state)."
            ) % {"state": label}
        return {
            "queue_search_note": searching,
            "role_note": role_note(request.user),
            "shortcuts": SHORTCUTS,
            "decide_url": reverse("admin:feed_item_decide"),
        }

    @admin.display(description=gettext_lazy("summary"))
    def excerpt(self, item: Item) -> str:
        excerpt = Truncator(item.summary or "").chars(EXCERPT_CHARS)
        ready = ""
        if getattr(item, "is_recommended", False):
            ready = format_html(
                '<span class="editorial-ready">{}</span> {}',
                _("Ready for a chief"),
                getattr(item, "recommended_note", "") or "",
            )
        return format_html('<span class="editorial-excerpt">{}</span>{}', excerpt, ready)

    @admin.display(description=gettext_lazy("story"), ordering="same_story_count")
    def story(self, item: Item) -> str:
        count = getattr(item, "same_story_count", 0)
        if not count:
            return "–"
        query = urlencode({"status": ALL, "cluster_key": item.cluster_key})
        return format_html(
            '<a href="?{}">{}</a>', query, _("%(count)d other sources") % {"count": count}
        )

    @admin.display(description=gettext_lazy("decide"))
    def decide(self, item: Item) -> str:
        """Stands in for the per-request column that `get_list_display` puts here."""
        return ""

    def _decide_column(self, request):
        user = request.user
        may = {action: workflow.user_may(user, action) for action in workflow.TRANSITIONS}
        reasons = [str(reason) for reason in REJECT_REASONS]
        url = reverse("admin:feed_item_decide")

        @admin.display(description=_("decide"))
        def decide(item: Item) -> str:
            moves = workflow.moves_from(item.status)
            buttons = []
            for action, key, label in (
                (LogAction.PUBLISH, "p", _("Publish")),
                (LogAction.FEATURE, "f", _("Feature")),
            ):
                if may[action] and action in moves:
                    buttons.append(
                        format_html(
                            '<button type="submit" formaction="{}" name="decide" value="{}:{}" '
                            'data-key="{}" title="{} ({})">{}</button>',
                            url,
                            action.value,
                            item.pk,
                            key,
                            label,
                            key,
                            label,
                        )
                    )
            if may[LogAction.REJECT] and LogAction.REJECT in moves:
                options = format_html_join(
                    "", '<option value="{}">{}</option>', ((r, r) for r in reasons)
                )
                buttons.append(
                    format_html(
                        '<select name="reason_{}" aria-label="{}">{}</select>'
                        '<button type="submit" formaction="{}" name="decide" value="reject:{}" '
                        'data-key="r" title="{} (r)">{}</button>',
                        item.pk,
                        _("Reason for rejecting"),
                        options,
                        url,
                        item.pk,
                        _("Reject"),
                        _("Reject"),
                    )
                )
            if not buttons:
                return format_html(
                    '<span class="editorial-cannot">{}</span>',
                    _("A chief editor decides") if item.status == DRAFT else "–",
                )
            return format_html_join("", "{}", ((button,) for button in buttons))

        return decide
