"""Tell PostgreSQL's planner what the short-gram function costs per row (feed/search_schema.py)."""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER FUNCTION feed_item_short_grams(text) COST 5000")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER FUNCTION feed_item_short_grams(text) COST 100")


class Migration(migrations.Migration):
    dependencies = [
        ("feed", "0007_searchbench_search_index"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
