"""SQLite: the FTS5 search index holds public items only (feed/search_schema.py says why).

PostgreSQL's search indexes were partial from the start; nothing changes there.
"""

from django.db import migrations

from feed.search_schema import search_schema_repair


def public_items_only(apps, schema_editor):
    search_schema_repair(connection=schema_editor.connection, public_only=True)


def every_row(apps, schema_editor):
    search_schema_repair(connection=schema_editor.connection, public_only=False)


class Migration(migrations.Migration):

    dependencies = [
        ("feed", "0009_item_source_fetched_idx"),
    ]

    operations = [
        migrations.RunPython(public_items_only, every_row),
    ]
