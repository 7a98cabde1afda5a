"""How sources look in the API."""

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_unicode_slug
from django.utils import translation
from rest_framework import serializers
from rest_framework.validators import UniqueValidator

from feed.models import Source


class UnicodeSlugField(serializers.CharField):
    """Letters of any script, digits, `-` and `_`.

    Checked in code rather than by a regex validator: the schema would carry
    the regex, and JSON Schema's `\\w` knows only ASCII letters.
    """

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        try:
            validate_unicode_slug(value)
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.messages) from None
        return value


class SourceBriefSerializer(serializers.ModelSerializer):
    """A source as an item names it."""

    class Meta:
        model = Source
        fields = ["id", "slug", "name", "kind", "handle"]
        read_only_fields = fields


class SourceSerializer(serializers.ModelSerializer):
    """A source in full, as staff with the permission may also write it."""

    page_url = serializers.SerializerMethodField(help_text="The public stream of this source.")
    slug = UnicodeSlugField(
        max_length=100,
        validators=[UniqueValidator(queryset=Source.objects.all())],
        help_text="Its short name in URLs and filters; Chinese characters allowed.",
    )

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
        # The site's default language (unprefixed), whatever the caller's Accept-Language.
        with translation.override(settings.LANGUAGE_CODE):
            return self.context["request"].build_absolute_uri(source.get_absolute_url())
