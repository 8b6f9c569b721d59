"""The standings pages, a module per concept (league/standings/urls.py routes to them)."""
