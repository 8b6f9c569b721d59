"""The money pages, a module per concept (league/money/urls.py routes to them)."""
