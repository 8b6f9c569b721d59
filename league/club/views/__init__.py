"""The club pages, a module per concept (league/club/urls.py routes to them)."""
