"""The `Error` shape, as a serializer so the schema describes it (see api/errors.py)."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """Every error answer of the API, 4xx and 5xx."""

    status = serializers.IntegerField(help_text="The HTTP status, repeated.")
    code = serializers.CharField(
        help_text="A stable name for the kind of error, e.g. `invalid`, `not_found`, "
        "`not_authenticated`, `permission_denied`, `not_permitted`, `not_allowed`, "
        "`duplicate_url`, `stale_version`, `throttled`, `locked_out`, `parse_error`, "
        "`server_error`, `unavailable`."
    )
    message = serializers.CharField(help_text="What went wrong, in words to show a person.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="For each parameter or body field that is wrong (nested ones dotted), "
        "its messages. Empty when the error is about the request as a whole.",
    )
    existing_id = serializers.IntegerField(
        required=False,
        help_text="`duplicate_url` only, and only to a caller who may read that item: "
        "the id of the item that has this URL.",
    )
    current_version = serializers.IntegerField(
        required=False, help_text="`stale_version` only: the item's version now."
    )
    changed_fields = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="`stale_version` only: the fields changed since the version you sent.",
    )
