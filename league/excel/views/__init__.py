"""The excel pages, a module per concept (league/excel/urls.py routes to them)."""
