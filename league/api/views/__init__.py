"""The api pages, a module per concept (league/api/urls.py routes to them)."""
