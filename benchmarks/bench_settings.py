"""The app's settings with a bare view added (benchmarks/load_bench.py's yardstick): gunicorn runs
with `--pythonpath benchmarks` and DJANGO_SETTINGS_MODULE=bench_settings."""

from league.settings import *  # noqa: F403

ROOT_URLCONF = "bench_urls"
