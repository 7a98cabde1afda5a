"""The API's shapes for an item's story and heat breakdown (for the OpenAPI schema)."""

from rest_framework import serializers


class StorySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    lead_id = serializers.IntegerField(allow_null=True, help_text="The item that stands for it.")
    is_lead = serializers.BooleanField()
    sources = serializers.IntegerField(help_text="Distinct sources carrying the story.")


class HeatPointsSerializer(serializers.Serializer):
    source = serializers.FloatField()
    featured = serializers.IntegerField()
    adjustment = serializers.IntegerField()
    clicks = serializers.FloatField()
    story = serializers.IntegerField()


class HeatBreakdownSerializer(serializers.Serializer):
    heat = serializers.IntegerField()
    pinned = serializers.IntegerField(allow_null=True)
    source_weight = serializers.IntegerField()
    featured = serializers.BooleanField()
    adjustment = serializers.IntegerField()
    clicks = serializers.IntegerField()
    story_sources = serializers.IntegerField()
    age_hours = serializers.FloatField()
    half_life_hours = serializers.FloatField()
    decay = serializers.FloatField()
    points = HeatPointsSerializer()
    computed_at = serializers.DateTimeField(allow_null=True)
