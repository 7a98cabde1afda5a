from django.apps import AppConfig


class BenchConfig(AppConfig):
    """Only installed by bench/settings.py: nothing of it reaches production."""

    name = "bench"
    verbose_name = "Benchmark"
