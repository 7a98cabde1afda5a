"""What PostgreSQL's planner needs to choose well for short-word search (docs/search.md).

The statistics PostgreSQL gathers for an expression index are not used for a
partial one, so it guessed that a rare two-character word matched 0.45 % of
the items and walked the stream index calling the gram function on each row:
40 s at a million items instead of 0.1 ms through the GIN index. Statistics on
the expression itself, with a long enough list of common grams (1,000: rare
grams are then known to be rare), fix the estimate; the function's COST tells
the planner what each call costs. The same statistics on the searched text
send a common English word (15 % of the items) along the stream index (1 ms)
rather than through the trigram index (0.9 s).
"""

from django.db import migrations

TEXT = "feed_item_search_text(title, summary, recommendation, authors)"
GRAMS = f"feed_item_short_grams({TEXT})"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER FUNCTION feed_item_short_grams(text) COST 5000")
    schema_editor.execute(
        f"CREATE STATISTICS IF NOT EXISTS feed_item_short_grams_stats ON ({GRAMS}) FROM feed_item"
    )
    schema_editor.execute("ALTER STATISTICS feed_item_short_grams_stats SET STATISTICS 1000")
    # The same for the trigram path: how often a longer word occurs.
    schema_editor.execute(
        f"CREATE STATISTICS IF NOT EXISTS feed_item_search_text_stats ON ({TEXT}) FROM feed_item"
    )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP STATISTICS IF EXISTS feed_item_search_text_stats")
    schema_editor.execute("DROP STATISTICS IF EXISTS feed_item_short_grams_stats")
    schema_editor.execute("ALTER FUNCTION feed_item_short_grams(text) COST 100")


class Migration(migrations.Migration):
    dependencies = [
        ("feed", "0007_searchbench_search_index"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
