"""Shared pytest fixtures for the Django side; scoring/ has its own under tests/scoring/."""
