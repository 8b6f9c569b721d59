"""The accounts pages, a module per concept (league/accounts/urls.py routes to them)."""
