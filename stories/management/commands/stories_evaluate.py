"""Print the matcher's precision and recall on a labelled pairs file, and the pairs it got wrong."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stories.evaluation import PairError, pairs_evaluate, pairs_read


class Command(BaseCommand):
    help = "Score the story matcher on a JSON Lines file of labelled pairs."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        try:
            pairs = pairs_read(file)
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}") from None
        except PairError as error:
            raise CommandError(f"{file}: {error}") from None
        result = pairs_evaluate(pairs)
        positives = result.true_positive + result.false_negative
        self.stdout.write(
            f"{result.pairs} pairs ({positives} same, {result.pairs - positives} different)\n"
            f"precision {result.precision:.3f}  recall {result.recall:.3f}  "
            f"(true positives {result.true_positive}, false positives {result.false_positive}, "
            f"false negatives {result.false_negative})"
        )
        for wrong in result.wrong:
            label = "missed" if wrong["same"] else "wrongly joined"
            self.stdout.write(
                f"  {label} {wrong['id']} ({wrong['why']}): {wrong['a']} | {wrong['b']}"
            )
