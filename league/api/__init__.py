"""The JSON API (django-ninja): resources in views.py, bearer tokens in auth.py."""
