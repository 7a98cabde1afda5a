"""One-click decisions on an item, from the top of its form or from its row in the queue.

A POST to `…/item/decide/` names one decision and one item (the button's
value, `publish:42`); this view calls the workflow function, turns its error
into a message and goes back where the editor was (the queue, the item, or
the next draft). The same view serves keyboard shortcuts (queue.js).
"""

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from editorial import workflow
from editorial.errors import WorkflowError
from editorial.models import ItemRecommendation, LogAction
from editorial.recommendations import item_recommend
from editorial.revisions import revision_accept, revision_decline, user_may_change_live
from feed.models import Item
from feed.revisions import ItemRevision

#: The short list of reasons offered when rejecting; "other" means the typed one.
REJECT_REASONS = (
    gettext_lazy("Not about AI"),
    gettext_lazy("Duplicate of another item"),
    gettext_lazy("Advertising or press release without news"),
    gettext_lazy("Low quality or misleading"),
    gettext_lazy("Paywalled or unreachable"),
)
DECISIONS = ("publish", "feature", "reject", "recommend", "accept", "decline")


def next_draft(item: Item) -> Item | None:
    """The draft after `item` in the queue's order (older), else the newest other draft."""
    drafts = Item.objects.drafts().exclude(pk=item.pk).order_by("-created_at", "-id")
    older = drafts.filter(created_at__lt=item.created_at) | drafts.filter(
        created_at=item.created_at, pk__lt=item.pk
    )
    return older.order_by("-created_at", "-id").first() or drafts.first()


class ItemDecisionsMixin:
    """Adds the decide URL and view to the item admin."""

    def get_urls(self):
        return [
            path(
                "decide/",
                self.admin_site.admin_view(self.decide_view),
                name="feed_item_decide",
            ),
            *super().get_urls(),
        ]

    def decide_view(self, request: HttpRequest):
        """Make one decision on one item, then go back (or on to the next draft)."""
        if request.method != "POST":
            return HttpResponseBadRequest(_("Decisions are sent with POST."))
        # The button's value: "publish:42", "publish:42:next" to go on to the next
        # draft, "accept:42:item:7" for revision 7 of item 42.
        decision, pk, then, revision = [*request.POST.get("decide", "").split(":", 3), "", "", ""][
            :4
        ]
        if decision not in DECISIONS or not pk.isdigit():
            return HttpResponseBadRequest(_("Unknown decision."))
        item = get_object_or_404(Item, pk=int(pk))
        try:
            text = self._decide(request, decision, item, revision_pk=_int(revision))
        except WorkflowError as error:
            self.message_user(request, error.message, messages.ERROR)
            return HttpResponseRedirect(self._back(request, item, then=then, moved=False))
        self.message_user(request, text, messages.SUCCESS)
        return HttpResponseRedirect(self._back(request, item, then=then, moved=True))

    def _decide(self, request, decision: str, item: Item, *, revision_pk: int) -> str:
        by = request.user
        title = item.title
        if decision == "publish":
            workflow.item_publish(item=item, by=by)
            return _("Published “%(title)s”.") % {"title": title}
        if decision == "feature":
            workflow.item_feature(item=item, by=by)
            return _("Featured “%(title)s”.") % {"title": title}
        if decision == "reject":
            workflow.item_reject(item=item, by=by, reason=self._reason(request, item))
            return _("Rejected “%(title)s”.") % {"title": title}
        if decision == "recommend":
            note = request.POST.get(f"note_{item.pk}", request.POST.get("note", ""))
            item_recommend(item=item, by=by, note=note)
            return _("“%(title)s” is marked ready for a chief.") % {"title": title}
        revision = get_object_or_404(ItemRevision, pk=revision_pk, item=item)
        if decision == "accept":
            revision_accept(revision=revision, by=by)
            return _("Accepted the revision of “%(title)s”: readers see it now.") % {"title": title}
        revision_decline(revision=revision, by=by, note=request.POST.get("decline_note", ""))
        return _("Declined the revision of “%(title)s”.") % {"title": title}

    def _reason(self, request, item: Item) -> str:
        typed = request.POST.get(f"reason_text_{item.pk}", request.POST.get("reason_text", ""))
        picked = request.POST.get(f"reason_{item.pk}", request.POST.get("reason", ""))
        return (typed.strip() or picked.strip()).replace("\x00", "")

    def _back(self, request, item: Item, *, then: str, moved: bool) -> str:
        if then == "next" and moved:
            following = next_draft(item)
            if following is not None:
                return reverse("admin:feed_item_change", args=[following.pk])
            self.message_user(request, _("No drafts are left in the queue."), messages.INFO)
            return reverse("admin:feed_item_changelist")
        if then in ("item", "next"):
            return reverse("admin:feed_item_change", args=[item.pk])
        back = request.POST.get("back", "")
        if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            return back
        return reverse("admin:feed_item_changelist")


def decision_context(request, item: Item | None) -> dict:
    """What the form's decision bar may offer this user for this item."""
    user = request.user
    status = item.status if item is not None else None
    moves = workflow.moves_from(status) if status else []

    def may(action):
        return workflow.user_may(user, action) and action in moves

    pending, recommendation, following = [], None, None
    if item is not None and item.pk:
        pending = list(ItemRevision.objects.pending().filter(item=item).order_by("proposed_at"))
        for revision in pending:
            revision.rows = [
                {
                    "label": Item._meta.get_field(name).verbose_name,
                    "now": Truncator(str(getattr(item, name) or "–")).chars(300),
                    "proposed": Truncator(str(value or "–")).chars(300),
                }
                for name, value in sorted(revision.changes.items())
            ]
        recommendation = ItemRecommendation.objects.filter(item=item).first()
        if status == Item.Status.DRAFT:
            following = next_draft(item)
    return {
        "recommendation": recommendation,
        "next_draft_url": reverse("admin:feed_item_change", args=[following.pk])
        if following
        else "",
        "decide_url": reverse("admin:feed_item_decide"),
        "may_publish": may(LogAction.PUBLISH),
        "may_feature": may(LogAction.FEATURE),
        "may_reject": may(LogAction.REJECT),
        "may_recommend": status == Item.Status.DRAFT and user.has_perm("feed.change_item"),
        "may_decide_revisions": user_may_change_live(user),
        "reject_reasons": [str(reason) for reason in REJECT_REASONS],
        "pending_revisions": pending,
        "role_note": role_note(user),
    }


def role_note(user) -> str:
    """One sentence saying what this user's role can do on the desk."""
    if workflow.user_may(user, LogAction.PUBLISH):
        return _(
            "You are a chief editor: you publish, feature and reject, and accept or decline "
            "changes proposed for live items. Drafts an editor marked ready come first."
        )
    return _(
        "You are an editor: you edit, tag and mark drafts “ready for a chief” with a note. "
        "A chief editor publishes; your changes to a live item's text wait for a chief."
    )


def _int(value) -> int:
    return int(value) if str(value or "").isdigit() else 0
