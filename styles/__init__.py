"""The app's stylesheets: one `.tcss` per concern, found next to this file."""

from pathlib import Path

STYLES = Path(__file__).parent
