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
    revision_payload,
)
from api.views.base import CheckedParametersMixin
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


@extend_schema_view(
    list=docs.ITEM_LIST,
    retrieve=docs.ITEM_RETRIEVE,
    create=docs.ITEM_CREATE,
    partial_update=docs.ITEM_PARTIAL_UPDATE,
)
class ItemViewSet(
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
        if self.action == "list":
            return items_for_api(items_filtered(self.request, Item.objects.visible()))
        return items_for_api(self.readable_items())

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

    def _transition(self, request, move: LogAction, serializer_class, call):
        """Check the permission, find the item, run the workflow function, answer with the item."""
        if not workflow.user_may(request.user, move):
            raise exceptions.PermissionDenied(str(workflow.TRANSITIONS[move].refused))
        body_check(request.data)
        serializer = serializer_class(data=request.data or {})
        serializer.is_valid(raise_exception=True)
        item = self.get_object()
        try:
            item = call(item=item, by=request.user, **serializer.validated_data)
        except (NotPermitted, TransitionNotAllowed, ReasonRequired) as error:
            raise _refusal(error) from None
        item = items_for_api(Item.objects.filter(pk=item.pk)).get()
        return Response(ItemSerializer(item, context=self.get_serializer_context()).data)

    @docs.transition("publish", PublishSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def publish(self, request, pk=None):
        """Publish a draft, now or from a given time."""
        return self._transition(
            request, LogAction.PUBLISH, PublishSerializer, workflow.item_publish
        )

    @docs.transition("feature", PublishSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def feature(self, request, pk=None):
        """Feature a draft or a published item."""
        return self._transition(
            request, LogAction.FEATURE, PublishSerializer, workflow.item_feature
        )

    @docs.transition("unfeature", EmptySerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def unfeature(self, request, pk=None):
        """Take the featured badge off; the item stays published."""
        return self._transition(
            request, LogAction.UNFEATURE, EmptySerializer, workflow.item_unfeature
        )

    @docs.transition("reject", RejectSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def reject(self, request, pk=None):
        """Reject an item, saying why; a public one leaves the site."""
        return self._transition(request, LogAction.REJECT, RejectSerializer, workflow.item_reject)

    @docs.transition("restore", EmptySerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def restore(self, request, pk=None):
        """Bring a rejected item back to the drafts."""
        return self._transition(request, LogAction.RESTORE, EmptySerializer, workflow.item_restore)
