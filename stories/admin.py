"""Stories in the review queue: each item's story and its siblings' statuses, and story actions.

The queue itself is editorial's `ItemAdmin`; this module registers a subclass
that adds a "story" column, the heat breakdown and four actions, each a call
into `stories.actions` (which go through the editorial workflow).
"""

from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from editorial import workflow
from editorial.admin.items import ItemAdmin
from editorial.errors import WorkflowError
from editorial.models import LogAction
from feed.models import Item
from stories import actions
from stories.heat import heat_breakdown, heat_recompute
from stories.models import BriefChoice, HeatScore, StoryItem


class HeatScoreInline(admin.StackedInline):
    """The stored parts of the item's heat; editors may adjust or pin it."""

    model = HeatScore
    can_delete = False
    fields = ["breakdown", "adjustment", "pinned"]
    readonly_fields = ["breakdown"]
    verbose_name_plural = gettext_lazy("heat")

    @admin.display(description=gettext_lazy("why this heat"))
    def breakdown(self, score: HeatScore) -> str:
        parts = heat_breakdown(score)
        if not parts:
            return "—"
        points = parts["points"]
        return format_html(
            "{}° = ({} {} + {} {} + {} {} + {} {} + {} {}) × {} ({} h, {} {} h)",
            parts["heat"],
            points["source"],
            _("source"),
            points["featured"],
            _("featured"),
            points["adjustment"],
            _("adjustment"),
            points["clicks"],
            _("clicks"),
            points["story"],
            _("story"),
            parts["decay"],
            parts["age_hours"],
            _("half-life"),
            parts["half_life_hours"],
        )


def _siblings_by_item(items) -> dict[int, list[Item]]:
    """Every page item's story members (any status), in one query."""
    ids = [item.pk for item in items]
    members = list(
        Item.objects.filter(
            story_link__story_id__in=StoryItem.objects.filter(item_id__in=ids).values("story_id")
        )
        .select_related("source", "story_link")
        .order_by("story_link__rank", "pk")
    )
    by_story: dict[int, list[Item]] = {}
    for member in members:
        by_story.setdefault(member.story_link.story_id, []).append(member)
    out = {}
    for member in members:
        if member.pk in ids:
            out[member.pk] = by_story[member.story_link.story_id]
    return out


class StoryItemAdmin(ItemAdmin):
    """The review queue, with stories."""

    actions = [
        *ItemAdmin.actions,
        "make_lead",
        "merge_stories",
        "split_out",
        "reject_duplicates",
    ]

    def has_reject_permission(self, request) -> bool:
        # For `reject_duplicates`: the workflow's permission to reject.
        return workflow.user_may(request.user, LogAction.REJECT)

    def story_annotate(self, queryset):
        # The "story" column comes from the stories (see get_changelist_instance).
        return queryset

    def get_inlines(self, request, obj):
        return [*super().get_inlines(request, obj), HeatScoreInline]

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        siblings = _siblings_by_item(changelist.result_list)
        for item in changelist.result_list:
            item.story_members = siblings.get(item.pk, [])
        return changelist

    @admin.display(description=gettext_lazy("story"))
    def story(self, item: Item) -> str:
        members = getattr(item, "story_members", [])
        others = [m for m in members if m.pk != item.pk]
        if not others:
            return "—"
        lead = members[0]
        head = (
            _("lead")
            if lead.pk == item.pk
            else _("in the story of “%(title)s”") % {"title": lead.title}
        )
        rows = format_html_join(
            "",
            "<li>{}: {} ({})</li>",
            ((m.source.name, m.title, m.get_status_display()) for m in others),
        )
        return format_html(
            '<span class="story-role">{}</span><ul class="story-members">{}</ul>', head, rows
        )

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is HeatScore and form.instance.pk:
            heat_recompute(item_ids=[form.instance.pk])

    def _each(self, request, queryset, function, done_singular, done_plural) -> None:
        done, refused = 0, []
        for item in queryset:
            try:
                function(item=item, by=request.user)
                done += 1
            except WorkflowError as error:
                refused.append(error.message)
        if done:
            self.message_user(request, ngettext(done_singular, done_plural, done) % {"count": done})
        for message in refused:
            self.message_user(request, message, messages.WARNING)

    @admin.action(description=gettext_lazy("Make the lead of its story"), permissions=["change"])
    def make_lead(self, request, queryset):
        self._each(
            request,
            queryset,
            actions.story_make_lead,
            "%(count)d item made the lead of its story.",
            "%(count)d items made the leads of their stories.",
        )

    @admin.action(description=gettext_lazy("Merge selected into one story"), permissions=["change"])
    def merge_stories(self, request, queryset):
        items = sorted(queryset, key=lambda item: item.created_at)
        if len(items) < 2:
            self.message_user(request, _("Select at least two items to merge."), messages.WARNING)
            return
        into = items[0]
        self._each(
            request,
            [item for item in items[1:]],
            lambda *, item, by: actions.story_merge(item=item, into=into, by=by),
            "%(count)d item merged into the story.",
            "%(count)d items merged into the story.",
        )

    @admin.action(description=gettext_lazy("Split out of its story"), permissions=["change"])
    def split_out(self, request, queryset):
        self._each(
            request,
            queryset,
            actions.story_split,
            "%(count)d item split out of its story.",
            "%(count)d items split out of their stories.",
        )

    @admin.action(
        description=gettext_lazy("Reject the story's other drafts as duplicates"),
        permissions=["reject"],
    )
    def reject_duplicates(self, request, queryset):
        rejected, refused = 0, []
        for item in queryset:
            try:
                rejected += len(actions.story_reject_duplicates(item=item, by=request.user))
            except WorkflowError as error:
                refused.append(error.message)
        self.message_user(
            request,
            ngettext("Rejected %(count)d duplicate.", "Rejected %(count)d duplicates.", rejected)
            % {"count": rejected},
        )
        for message in refused:
            self.message_user(request, message, messages.WARNING)


admin.site.unregister(Item)
admin.site.register(Item, StoryItemAdmin)


@admin.register(BriefChoice)
class BriefChoiceAdmin(admin.ModelAdmin):
    """Editors' pins and drops for the daily brief."""

    list_display = ["day", "choice", "item"]
    list_filter = ["choice", "day"]
    raw_id_fields = ["item"]
