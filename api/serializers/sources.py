"""How sources look in the API."""

from rest_framework import serializers

from feed.models import Source


class SourceBriefSerializer(serializers.ModelSerializer):
    """A source as an item names it."""

    class Meta:
        model = Source
        fields = ["id", "slug", "name", "kind", "handle"]
        read_only_fields = fields


class SourceSerializer(serializers.ModelSerializer):
    """A source in full, as staff with the permission may also write it."""

    page_url = serializers.SerializerMethodField(help_text="The public stream of this source.")

    class Meta:
        model = Source
        fields = [
            "id",
            "slug",
            "name",
            "kind",
            "handle",
            "homepage_url",
            "feed_url",
            "default_category",
            "weight",
            "is_active",
            "page_url",
        ]
        read_only_fields = ["id", "page_url"]
        # The database's check constraint, said where a caller sees it.
        extra_kwargs = {"weight": {"min_value": 0, "max_value": 100}}

    def get_page_url(self, source: Source) -> str:
        return self.context["request"].build_absolute_uri(source.get_absolute_url())
