"""Where things are, whichever folder a test module sits in."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
DATA = ROOT / "tests" / "data"  # cases/ (the worked cases) and online/ (real Tenhou logs)
