"""The recording pages, a module per concept (league/recording/urls.py routes to them)."""
