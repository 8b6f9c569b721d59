"""Janchō (雀帳): the Django project and its single app."""
