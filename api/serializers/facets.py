"""Counts over the filtered stream: tags and days."""

from rest_framework import serializers


class TagCountSerializer(serializers.Serializer):
    slug = serializers.CharField(help_text="Use it in the `tag` filter.")
    name = serializers.CharField()
    count = serializers.IntegerField(
        source="item_count", help_text="Published items with this tag, under the filters given."
    )


class DayCountSerializer(serializers.Serializer):
    date = serializers.DateField(source="day", help_text="A day in the site's time zone.")
    count = serializers.IntegerField(help_text="Published items of that day, under the filters.")
