"""What the schema says about each item operation: parameters, examples and errors.

Kept apart from the views so that the views read as code; every string here
ends up in /api/docs/ and /api/redoc/.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from api.serializers.errors import ErrorSerializer
from api.serializers.items import (
    EmptySerializer,
    ItemEditSerializer,
    ItemSerializer,
    ItemSubmitSerializer,
    ItemWithProposalSerializer,
)
from feed.models import Category, Kind

MAX = 2000  # settings.AITOP_API_MAX_PARAMETER_LENGTH's default

FILTERS = [
    OpenApiParameter(
        "kind", OpenApiTypes.STR, enum=Kind.values, description="Only items of this kind."
    ),
    OpenApiParameter(
        "category",
        OpenApiTypes.STR,
        enum=Category.values,
        description="Only items of this category.",
    ),
    OpenApiParameter(
        "tag",
        {"type": "array", "items": {"type": "string", "maxLength": 100}, "maxItems": 10},
        explode=True,
        style="form",
        description="A tag's slug; repeat it (`tag=a&tag=b`) for items that carry every one.",
    ),
    OpenApiParameter(
        "source", {"type": "string", "maxLength": MAX}, description="A source's slug."
    ),
    OpenApiParameter(
        "featured",
        OpenApiTypes.STR,
        enum=["1", "0", "true", "false"],
        description="`1` (or `true`): featured items only; `0` (or `false`): the others.",
    ),
    OpenApiParameter(
        "q",
        {"type": "string", "maxLength": MAX},
        description="Words that title, summary, recommendation or authors must all contain "
        "(the first 100 characters count).",
    ),
    OpenApiParameter(
        "since",
        {"type": "string", "maxLength": MAX},
        description="From this day (`YYYY-MM-DD`, in the site's time zone) or moment "
        "(ISO 8601, e.g. `2026-06-19T09:50:00+08:00`) on.",
    ),
    OpenApiParameter(
        "until",
        {"type": "string", "maxLength": MAX},
        description="Up to this day (the whole day included) or moment.",
    ),
]
ORDERING = OpenApiParameter(
    "ordering",
    OpenApiTypes.STR,
    enum=["latest", "hot"],
    description="`latest` (default): newest first, as on the site. `hot`: highest heat first.",
)

ITEM_EXAMPLE = {
    "id": 42,
    "page_url": "https://aitop.example/items/42/a-smaller-model-that-reads-long-papers/",
    "original_url": "https://arxiv.org/abs/2606.01234",
    "title": "A smaller model that reads long papers",
    "summary": "The authors train a 3B model that keeps up with far larger ones on long inputs.",
    "recommendation": "Worth reading if you serve long documents on one GPU.",
    "authors": "María Gragera Garcés, Lirandë Pira",
    "source": {
        "id": 3,
        "slug": "arxiv-cs-lg",
        "name": "arXiv cs.LG",
        "kind": "paper",
        "handle": "",
    },
    "kind": "paper",
    "category": "paper",
    "tags": [{"slug": "长上下文", "name": "长上下文"}],
    "heat": 83,
    "featured": True,
    "status": "featured",
    "published_at": "2026-06-19T09:50:00+08:00",
    "version": 4,
}


def error_response(description: str, example: dict) -> OpenApiResponse:
    """A documented 4xx answer in the `Error` shape, with its example."""
    return OpenApiResponse(
        response=ErrorSerializer,
        description=description,
        examples=[OpenApiExample(example["code"], value=example, response_only=True)],
    )


DUPLICATE = error_response(
    "An item with this (canonical) URL exists already; `existing_id` names it.",
    {
        "status": 409,
        "code": "duplicate_url",
        "message": "An item with this URL exists already.",
        "fields": {},
        "existing_id": 17,
    },
)
STALE = error_response(
    "Someone saved the item after the version you sent; nothing was changed.",
    {
        "status": 409,
        "code": "stale_version",
        "message": "chief changed title at June 19, 2026, 10:02, after you opened this item.",
        "fields": {},
        "current_version": 5,
        "changed_fields": ["title"],
    },
)
INVALID = error_response(
    "A field is wrong; `fields` says which and why.",
    {
        "status": 400,
        "code": "invalid",
        "message": "Some fields are not valid: title, url.",
        "fields": {"title": ["This field is required."], "url": ["Enter a valid URL."]},
    },
)
NOT_PERMITTED = error_response(
    "The token's user may not make this move.",
    {
        "status": 403,
        "code": "permission_denied",
        "message": "You are not allowed to publish items.",
        "fields": {},
    },
)
NOT_ALLOWED = error_response(
    "The item's status does not allow this move (or someone moved it meanwhile).",
    {
        "status": 409,
        "code": "not_allowed",
        "message": "“A smaller model” is published: only drafts can be published.",
        "fields": {},
    },
)

ITEM_LIST = extend_schema(
    summary="List published items",
    description="What the public stream shows, with the same filters and the same order "
    "(newest first, `ordering=latest`), a page at a time. The cursor keeps its place while "
    "new items arrive. Only published items whose time has come are listed, for every caller.",
    parameters=[*FILTERS, ORDERING],
    examples=[OpenApiExample("An item", value=ITEM_EXAMPLE, response_only=True)],
)
ITEM_RETRIEVE = extend_schema(
    summary="One item",
    description="A published item. Drafts, rejected and scheduled items are a 404, except "
    "to staff who may view items and to the user who submitted them.",
    examples=[OpenApiExample("An item", value=ITEM_EXAMPLE, response_only=True)],
)
ITEM_CREATE = extend_schema(
    summary="Submit an item",
    description="Needs a token whose user has `feed.add_item`. The item becomes a **draft** "
    "in the review queue; it is never published by this call. The URL is stored in its "
    "canonical form (tracking parameters dropped), and must not exist yet.",
    request=ItemSubmitSerializer,
    responses={201: ItemSerializer, 400: INVALID, 409: DUPLICATE},
    examples=[
        OpenApiExample(
            "A submission",
            request_only=True,
            value={
                "source": "arxiv-cs-lg",
                "title": "A smaller model that reads long papers",
                "url": "https://arxiv.org/abs/2606.01234",
                "summary": "The authors train a 3B model that keeps up on long inputs.",
                "category": "paper",
                "tags": ["长上下文", "distillation"],
            },
        ),
        OpenApiExample("The draft", value={**ITEM_EXAMPLE, "status": "draft"}, response_only=True),
    ],
)
ITEM_PARTIAL_UPDATE = extend_schema(
    summary="Change an item",
    description="Needs `feed.change_item`. Send `version` as you read it and the fields to "
    "change. If anyone saved the item since, nothing is written and the answer is a 409 "
    "naming who changed what. Status and publish time change only through the actions below. "
    "On a published or featured item, a change to its title, URL, authors, summary, 'why' or "
    "body by anyone but a chief editor (`feed.change_live_item`) is not written: it becomes a "
    "proposed revision that a chief accepts or declines in the admin, and the answer is a 202 "
    "with the item as it stands and `proposed_revision`. Other fields change at once.",
    request=ItemEditSerializer,
    responses={200: ItemSerializer, 202: ItemWithProposalSerializer, 400: INVALID, 409: STALE},
    examples=[
        OpenApiExample(
            "A correction",
            request_only=True,
            value={"version": 4, "title": "A 3B model that reads long papers"},
        )
    ],
)

_MOVES = {
    "publish": (
        "Publish a draft",
        "Needs `feed.publish_item`. `at` in the future schedules it. Answers with the item.",
    ),
    "feature": (
        "Feature an item",
        "Needs `feed.feature_item`. A draft is published and featured at once.",
    ),
    "unfeature": ("Unfeature an item", "Needs `feed.unfeature_item`. The item stays published."),
    "reject": (
        "Reject an item",
        "Needs `feed.reject_item` and a `reason`. A public item leaves the site at once.",
    ),
    "restore": ("Restore a rejected item", "Needs `feed.restore_item`. It becomes a draft again."),
}


def transition(name: str, serializer) -> extend_schema:
    """The schema of one editorial action."""
    summary, description = _MOVES[name]
    return extend_schema(
        summary=summary,
        description=description
        + " Sent by a user without the permission it is a 403 with the reason; from a "
        "status that does not allow it, a 409.",
        request=None if serializer is EmptySerializer else serializer,
        responses={200: ItemSerializer, 403: NOT_PERMITTED, 409: NOT_ALLOWED},
    )
