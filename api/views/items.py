"""Items: the public stream as data, submissions, edits and the editorial actions."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_view
from rest_framework import exceptions, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api import docs
from api.errors import BadParameter, Conflict
from api.filtering import ORDERINGS, items_filtered
from api.pagination import Key
from api.params import body_check
from api.serializers.items import (
    EmptySerializer,
    ItemEditSerializer,
    ItemSerializer,
    ItemSubmitSerializer,
    PublishSerializer,
    RejectSerializer,
    items_for_api,
    items_for_reading,
    revision_payload,
)
from api.views.base import CachedForAnonymousMixin, CheckedParametersMixin
from editorial import workflow
from editorial.edits import item_create, item_edit
from editorial.errors import (
    EditConflict,
    FieldNotEditable,
    NotPermitted,
    ReasonRequired,
    TransitionNotAllowed,
)
from editorial.models import LogAction
from feed.identity import DuplicateURL
from feed.models import Item
from feed.revisions import ItemRevision

_KEYSETS = {
    "latest": [Key("published_at", type="datetime"), Key("id")],
    "hot": [Key("heat"), Key("published_at", type="datetime"), Key("id")],
}


def _refusal(error: Exception, *, readable=None) -> exceptions.APIException:
    """The API's answer to a refusal from the editorial functions."""
    if isinstance(error, DuplicateURL):
        # A caller who may not read the item (a draft, someone else's) learns
        # that the URL is taken, never which item has it.
        shown = readable is not None and readable.filter(pk=error.existing_id).exists()
        return Conflict(
            error.message,
            code=error.code,
            **({"existing_id": error.existing_id} if shown else {}),
        )
    if isinstance(error, NotPermitted):
        return exceptions.PermissionDenied(error.message, code=error.code)
    if isinstance(error, TransitionNotAllowed):
        return Conflict(error.message, code=error.code)
    if isinstance(error, EditConflict):
        return Conflict(
            error.message,
            code="stale_version",
            current_version=error.current_version,
            changed_fields=error.changed_fields,
        )
    if isinstance(error, ReasonRequired):
        return exceptions.ValidationError({"reason": [error.message]}, code=error.code)
    if isinstance(error, FieldNotEditable):
        return exceptions.ValidationError(error.message, code=error.code)
    if isinstance(error, DjangoValidationError):
        if hasattr(error, "message_dict"):
            return exceptions.ValidationError(error.message_dict)
        return exceptions.ValidationError(error.messages)
    raise error


#: What each move takes in its body (publish and feature: `at`; reject: `reason`).
MOVE_SERIALIZERS = {
    LogAction.PUBLISH: PublishSerializer,
    LogAction.FEATURE: PublishSerializer,
    LogAction.UNFEATURE: EmptySerializer,
    LogAction.REJECT: RejectSerializer,
    LogAction.RESTORE: EmptySerializer,
}


def _move_endpoint(move: LogAction, doc: str):
    """The POST /items/<id>/<move>/ route: a call of `ItemViewSet.move`."""

    def endpoint(self, request, pk=None):
        return self.move(request, move)

    endpoint.__name__ = endpoint.__qualname__ = move.value
    endpoint.__doc__ = doc
    routed = action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    return docs.transition(move.value, MOVE_SERIALIZERS[move])(routed(endpoint))


@extend_schema_view(
    list=docs.ITEM_LIST,
    retrieve=docs.ITEM_RETRIEVE,
    create=docs.ITEM_CREATE,
    partial_update=docs.ITEM_PARTIAL_UPDATE,
)
class ItemViewSet(
    CachedForAnonymousMixin,
    CheckedParametersMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Published items, newest (or hottest) first, with the public site's filters."""

    serializer_class = ItemSerializer
    queryset = Item.objects.none()
    # Ids only: anything else is not an item (a 404 in the API's shape).
    lookup_value_regex = r"\d{1,18}"
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self):
        # DRF's model permissions ask for the queryset too (to learn its model):
        # build it once, since filtering by tag looks the tags' ids up.
        if getattr(self, "_items", None) is None:
            if self.action == "list":
                self._items = items_for_reading(
                    items_filtered(self.request, Item.objects.visible())
                )
            elif self.action == "retrieve":
                self._items = items_for_reading(self.readable_items())
            else:
                self._items = items_for_api(self.readable_items())
        return self._items.all()

    def readable_items(self):
        """Visible items and the caller's own submissions; every item for staff who may view."""
        user = self.request.user
        if user.has_perm("feed.view_item") or user.has_perm("feed.change_item"):
            return Item.objects.all()
        if user.is_authenticated:
            return Item.objects.filter(
                Q(pk__in=Item.objects.visible().values("pk")) | Q(submitted_by=user)
            )
        return Item.objects.visible()

    def keyset(self, request) -> list[Key]:
        ordering = request.query_params.get("ordering", "latest").strip() or "latest"
        if ordering not in ORDERINGS:
            raise BadParameter(
                {"ordering": [_("Order by one of: %(names)s.") % {"names": ", ".join(ORDERINGS)}]}
            )
        return _KEYSETS[ordering]

    def create(self, request, *args, **kwargs):
        """Submit an item: it becomes a draft in the review queue, never published."""
        body_check(request.data)
        serializer = ItemSubmitSerializer(data=request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        try:
            item = item_create(by=request.user, fields=dict(serializer.validated_data))
        except (NotPermitted, FieldNotEditable, DuplicateURL, DjangoValidationError) as error:
            raise _refusal(error, readable=self.readable_items()) from None
        item = items_for_api(Item.objects.filter(pk=item.pk)).get()
        data = ItemSerializer(item, context=self.get_serializer_context()).data
        location = request.build_absolute_uri(reverse("api:item-detail", kwargs={"pk": item.pk}))
        return Response(data, status=status.HTTP_201_CREATED, headers={"Location": location})

    def partial_update(self, request, *args, **kwargs):
        """Change an item's editable fields, if nobody saved it since the version you read."""
        body_check(request.data)
        item = self.get_object()
        serializer = ItemEditSerializer(data=request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        version = changes.pop("version")
        try:
            item = item_edit(
                item=item,
                by=request.user,
                changes=changes,
                expected_version=version,
                origin=ItemRevision.Origin.API,
            )
        except (
            NotPermitted,
            EditConflict,
            FieldNotEditable,
            DuplicateURL,
            DjangoValidationError,
        ) as error:
            raise _refusal(error, readable=self.readable_items()) from None
        proposal = item.proposal
        item = items_for_api(Item.objects.filter(pk=item.pk)).get()
        data = ItemSerializer(item, context=self.get_serializer_context()).data
        if proposal is None:
            return Response(data)
        # A live item's text waits for a chief editor: 202, the item as it
        # stands, and what was proposed.
        return Response(
            {**data, "proposed_revision": revision_payload(proposal)},
            status=status.HTTP_202_ACCEPTED,
        )

    def move(self, request, action: LogAction):
        """The one dispatcher of the editorial moves: check, find the item, `item_move`, answer."""
        if not workflow.user_may(request.user, action):
            raise exceptions.PermissionDenied(str(workflow.TRANSITIONS[action].refused))
        body_check(request.data)
        serializer = MOVE_SERIALIZERS[action](data=request.data or {})
        serializer.is_valid(raise_exception=True)
        item = self.get_object()
        try:
            item = workflow.item_move(
                action, item=item, by=request.user, **serializer.validated_data
            )
        except (NotPermitted, TransitionNotAllowed, ReasonRequired) as error:
            raise _refusal(error) from None
        item = items_for_api(Item.objects.filter(pk=item.pk)).get()
        return Response(ItemSerializer(item, context=self.get_serializer_context()).data)

    # One route per move, each a call of `move`: the router and the schema need a name each.
    publish = _move_endpoint(LogAction.PUBLISH, "Publish a draft, now or from a given time.")
    feature = _move_endpoint(LogAction.FEATURE, "Feature a draft or a published item.")
    unfeature = _move_endpoint(
        LogAction.UNFEATURE, "Take the featured badge off; the item stays published."
    )
    reject = _move_endpoint(
        LogAction.REJECT, "Reject an item, saying why; a public one leaves the site."
    )
    restore = _move_endpoint(LogAction.RESTORE, "Bring a rejected item back to the drafts.")
