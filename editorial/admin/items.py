"""The review queue and the item form: where editors spend their day.

Every status change goes through `editorial.workflow`, every edit through
`editorial.edits.item_edit`; this module only turns requests into those calls
and their errors into messages.
"""

from django.contrib import admin, messages
from django.contrib.admin import ActionLocation, DateFieldListFilter
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponseBadRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aitop.nul import NUL, nul_parameter
from editorial import workflow
from editorial.admin.bulk import done_message, items_move, refused_message
from editorial.admin.decisions import ItemDecisionsMixin, decision_context, role_note
from editorial.admin.filters import ALL, StatusFilter, TagFilter
from editorial.admin.forms import ItemForm, ItemListForm
from editorial.admin.queue import QueueColumnsMixin
from editorial.admin.tags import tag_suggestions
from editorial.edits import EDITABLE_FIELDS, item_create, item_edit
from editorial.errors import EditConflict, WorkflowError
from editorial.models import ItemLogEntry, LogAction
from feed.identity import DuplicateURL
from feed.models import Item

#: The queue's bulk action for each workflow move, by the move's name.
MOVE_ACTIONS = {
    LogAction.PUBLISH: gettext_lazy("Publish selected items"),
    LogAction.FEATURE: gettext_lazy("Feature selected items"),
    LogAction.UNFEATURE: gettext_lazy("Unfeature selected items"),
    LogAction.REJECT: gettext_lazy("Reject selected items…"),
    LogAction.RESTORE: gettext_lazy("Restore selected items"),
}


def _move_action(action: LogAction):
    """The bulk action named after `action`: a call of `ItemAdmin.move_selected`."""

    def run(modeladmin, request, queryset):
        return modeladmin.move_selected(request, queryset, action)

    run.__name__ = action.value
    return admin.action(description=MOVE_ACTIONS[action])(run)


# The change form's buttons that save and then move the item.
SAVE_AND = {"_publish": LogAction.PUBLISH, "_feature": LogAction.FEATURE}
NEXT_DRAFT = "_nextdraft"


class ItemHistoryInline(admin.TabularInline):
    """The item's history, newest first; written by the workflow, never by hand."""

    model = ItemLogEntry
    extra = 0
    can_delete = False
    ordering = ["-at", "-id"]
    fields = ["at", "action", "from_status", "to_status", "by_name", "note", "changed", "version"]
    readonly_fields = fields
    verbose_name = gettext_lazy("history entry")
    verbose_name_plural = gettext_lazy("history")

    @admin.display(description=gettext_lazy("changed fields"))
    def changed(self, entry: ItemLogEntry) -> str:
        return ", ".join(
            str(Item._meta.get_field(name).verbose_name) for name in entry.changed_fields
        )

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Item)
class ItemAdmin(QueueColumnsMixin, ItemDecisionsMixin, admin.ModelAdmin):
    form = ItemForm
    inlines = [ItemHistoryInline]
    # The queue's columns at 1280 px without a horizontal scroll: the summary
    # excerpt wraps under its own narrow heading; "story" is the slot where the
    # story data goes (QueueColumnsMixin.story); decisions sit in their own cell.
    list_display = [
        "time",
        "title",
        "excerpt",
        "source",
        "story",
        "tag_list",
        "category",
        "heat",
        "status_label",
        "decide",
    ]
    list_display_links = ["title"]
    list_editable = ["category", "heat"]
    list_filter = [
        StatusFilter,
        "kind",
        "category",
        "source",
        TagFilter,
        ("created_at", DateFieldListFilter),
        ("published_at", DateFieldListFilter),
    ]
    search_fields = ["title", "summary", "url", "authors"]
    list_select_related = ["source"]
    list_per_page = 50
    # "N of M" would COUNT every item on each page of the queue.
    show_full_result_count = False
    ordering = ["-created_at", "-id"]
    save_as = True
    actions = [_move_action(action) for action in MOVE_ACTIONS]
    readonly_fields = [
        "original_link",
        "status_label",
        "published_at",
        "reviewer",
        "reviewed_at",
        "preview_links",
        "guid",
        "original_published_at",
        "fetched_at",
        "submitter",
        "clicks",
        "edited_fields",
        "created_at",
        "updated_at",
        "version",
    ]

    class Media:
        css = {"all": ["editorial/admin.css"]}
        js = ["editorial/queue.js"]

    # --- the queue -------------------------------------------------------------

    def get_queryset(self, request):
        # Not super(): it orders before the annotations that the order may name.
        queryset = (
            self.model._default_manager.get_queryset()
            .select_related("source", "reviewed_by", "submitted_by")
            .prefetch_related("tags")
        )
        queryset = self.story_annotate(queryset)
        return self.queue_order(request, queryset).order_by(*self.get_ordering(request))

    def story_annotate(self, queryset):
        """How many other items share each row's cluster key (the "story" column).

        The stories app's admin fills the same column from its stories and
        overrides this to add nothing.
        """
        others = (
            Item.objects.filter(cluster_key=OuterRef("cluster_key"))
            .exclude(cluster_key="")
            .exclude(pk=OuterRef("pk"))
            .order_by()
            .values("cluster_key")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return queryset.annotate(
            same_story_count=Coalesce(Subquery(others, output_field=IntegerField()), Value(0))
        )

    def get_changelist_form(self, request, **kwargs):
        return ItemListForm

    def changelist_view(self, request, extra_context=None):
        if nul_parameter(request, form=True) is not None:
            return HttpResponseBadRequest(_("The request contains a NUL character."))
        extra_context = {**(extra_context or {}), **self.queue_context(request)}
        try:
            return super().changelist_view(request, extra_context)
        except EditConflict:
            # Someone saved between the row's check and its write: the second
            # pass sees their version and shows the conflict on that row.
            return super().changelist_view(request, extra_context)

    @admin.display(description=gettext_lazy("added"), ordering="created_at")
    def time(self, item: Item) -> str:
        # When the item came into the desk (fetched, imported or typed in), in
        # the site's time zone; the publish time is in the status column.
        return formats.date_format(timezone.localtime(item.created_at), "SHORT_DATETIME_FORMAT")

    @admin.display(description=gettext_lazy("tags"))
    def tag_list(self, item: Item) -> str:
        return format_html_join(
            ", ",
            '<a href="?{}">{}</a>',
            ((urlencode({"status": ALL, "tag": tag.slug}), tag.name) for tag in item.tags.all()),
        )

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_label(self, item: Item) -> str:
        if item.is_scheduled():
            when = formats.date_format(
                timezone.localtime(item.published_at), "SHORT_DATETIME_FORMAT"
            )
            return format_html(
                '<span class="editorial-status editorial-status--scheduled">{}</span>',
                _("%(status)s, scheduled for %(when)s")
                % {"status": item.get_status_display(), "when": when},
            )
        return format_html(
            '<span class="editorial-status editorial-status--{}">{}</span>',
            item.status,
            item.get_status_display(),
        )

    # --- bulk actions -----------------------------------------------------------

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        """Every action, less the moves this user may not make (the workflow's permissions)."""
        return {
            name: spec
            for name, spec in super().get_actions(request, action_location).items()
            if name not in MOVE_ACTIONS or workflow.user_may(request.user, LogAction(name))
        }

    def move_selected(self, request, queryset, action: LogAction):
        """The one dispatcher of the queue's moves: each selected item through `item_move`."""
        if action == LogAction.REJECT:
            reason = request.POST.get("reason", "").strip()
            if not (request.POST.get("post") == "yes" and reason and NUL not in reason):
                return self._reason_asked(request, queryset, reason)
            return self._bulk(request, queryset, action, reason=reason)
        return self._bulk(request, queryset, action)

    def _reason_asked(self, request, queryset, reason: str) -> TemplateResponse:
        # First time round (or without a reason): ask for one.
        return TemplateResponse(
            request,
            "editorial/reject_confirmation.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Reject items"),
                "opts": self.opts,
                "items": queryset,
                "reason": reason,
                "missing_reason": request.POST.get("post") == "yes",
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )

    def _bulk(self, request, queryset, action: LogAction, **kwargs) -> None:
        result = items_move(queryset, action, by=request.user, **kwargs)
        if result.done:
            self.message_user(request, done_message(action, result.done), messages.SUCCESS)
        if result.refused:
            self.message_user(request, refused_message(result.refused), messages.WARNING)

    # --- the item form ------------------------------------------------------------

    def get_fieldsets(self, request, obj=None):
        workflow_fields = ["status_label", "published_at"]
        if self._may_put_online(request):
            workflow_fields.append("publish_at")
        workflow_fields += ["reviewer", "reviewed_at", "preview_links", "expected_version"]
        return [
            (
                _("Content"),
                {
                    "fields": [
                        "title",
                        "original_link",
                        "url",
                        "source",
                        "authors",
                        "summary",
                        "recommendation",
                        "body",
                    ]
                },
            ),
            (_("Classification"), {"fields": ["kind", "category", "tags", "heat", "cluster_key"]}),
            (_("Workflow"), {"fields": workflow_fields}),
            (
                _("Fetch metadata"),
                {
                    "fields": [
                        "guid",
                        "original_published_at",
                        "fetched_at",
                        "submitter",
                        "clicks",
                        "edited_fields",
                        "created_at",
                        "updated_at",
                        "version",
                    ],
                    "classes": ["collapse"],
                },
            ),
        ]

    @admin.display(description=gettext_lazy("original"))
    def original_link(self, item: Item) -> str:
        if not item.url.startswith(("https://", "http://")):
            return item.url or "–"
        return format_html(
            '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', item.url, item.url
        )

    # Names, not links: editors may not open the user admin.
    @admin.display(description=gettext_lazy("reviewed by"))
    def reviewer(self, item: Item) -> str:
        return item.reviewed_by.get_username() if item.reviewed_by else "–"

    @admin.display(description=gettext_lazy("submitted by"))
    def submitter(self, item: Item) -> str:
        return item.submitted_by.get_username() if item.submitted_by else "–"

    @admin.display(description=gettext_lazy("preview"))
    def preview_links(self, item: Item) -> str:
        if not item.pk:
            return "–"
        return format_html(
            '<a href="{}" target="_blank">{}</a> · <a href="{}" target="_blank">{}</a>',
            reverse("editorial:preview-stream", args=[item.pk]),
            _("on the stream"),
            reverse("editorial:preview-item", args=[item.pk]),
            _("on its page"),
        )

    def view_on_site(self, item: Item) -> str | None:
        """Only a visible item has a public page to link to."""
        return item.get_absolute_url() if item.is_visible() else None

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except (EditConflict, DuplicateURL):
            # Another save landed between this form's check and its write; the
            # second pass sees the newer version (or the rival's URL) and shows
            # the form with the input and the reason.
            return super().changeform_view(request, object_id, form_url, extra_context)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        status = obj.status if obj is not None else Item.Status.DRAFT
        may = {
            action: workflow.user_may(request.user, action)
            and action in workflow.moves_from(status)
            for action in SAVE_AND.values()
        }
        context.update(
            {
                "editorial_can_publish": may[LogAction.PUBLISH],
                "editorial_can_feature": may[LogAction.FEATURE],
                "decide": decision_context(request, obj),
                "role_note": role_note(request.user),
            }
        )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(self, request, obj, form, change):
        if change:
            item_edit(
                item=obj,
                by=request.user,
                changes=form.edited_values(),
                expected_version=form.cleaned_data["expected_version"],
            )
            if obj.proposal is not None:
                self.message_user(request, proposal_message(obj), messages.WARNING)
            return
        fields = {
            name: form.cleaned_data[name] for name in EDITABLE_FIELDS if name in form.cleaned_data
        }
        created = item_create(by=request.user, fields=fields)
        obj.pk = created.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        # Tags were saved by item_edit / item_create with the other fields, so
        # no form.save_m2m(); the history inline is read-only and saves nothing.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)
        for button, action in SAVE_AND.items():
            if button in request.POST:
                self._save_and_move(request, form.instance, action, form.cleaned_data)

    def _save_and_move(self, request, item: Item, action: LogAction, cleaned: dict) -> None:
        try:
            workflow.item_move(action, item=item, by=request.user, at=cleaned.get("publish_at"))
        except WorkflowError as error:
            self.message_user(
                request,
                _("Saved, but not moved: %(reason)s") % {"reason": error.message},
                messages.ERROR,
            )
        else:
            self.message_user(request, done_message(action, 1), messages.SUCCESS)

    def response_change(self, request, obj):
        if NEXT_DRAFT in request.POST:
            return self._next_draft_redirect(request, obj)
        return super().response_change(request, obj)

    def response_add(self, request, obj, post_url_continue=None):
        if NEXT_DRAFT in request.POST:
            return self._next_draft_redirect(request, obj)
        return super().response_add(request, obj, post_url_continue)

    def _next_draft_redirect(self, request, item: Item) -> HttpResponseRedirect:
        drafts = Item.objects.drafts().exclude(pk=item.pk).order_by("-created_at", "-id")
        older = drafts.filter(
            Q(created_at__lt=item.created_at) | Q(created_at=item.created_at, pk__lt=item.pk)
        )
        following = older.first() or drafts.first()
        self.message_user(
            request, _("Saved “%(title)s”.") % {"title": item.title}, messages.SUCCESS
        )
        if following is None:
            self.message_user(request, _("No drafts are left in the queue."), messages.INFO)
            return HttpResponseRedirect(reverse("admin:feed_item_changelist"))
        return HttpResponseRedirect(reverse("admin:feed_item_change", args=[following.pk]))

    def _may_put_online(self, request) -> bool:
        return any(workflow.user_may(request.user, action) for action in SAVE_AND.values())

    # --- tag suggestions ------------------------------------------------------------

    def get_urls(self):
        return [
            path(
                "tags/autocomplete/",
                self.admin_site.admin_view(self.tag_autocomplete_view),
                name="feed_item_tag_autocomplete",
            ),
            *super().get_urls(),
        ]

    def tag_autocomplete_view(self, request: HttpRequest):
        """Existing tags for the item form's tag field, as the editor types."""
        return tag_suggestions(request, allowed=self.has_change_permission(request))


def proposal_message(item: Item) -> str:
    """Tell an editor that their change to a live item waits for a chief."""
    fields = ", ".join(
        str(Item._meta.get_field(name).verbose_name) for name in sorted(item.proposal.changes)
    )
    return _("“%(title)s” is live: your change to %(fields)s waits for a chief editor.") % {
        "title": item.title,
        "fields": fields,
    }
