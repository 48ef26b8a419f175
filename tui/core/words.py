"""Counts in words: "1 brand", "2 brands" (no Textual)."""

from __future__ import annotations

IRREGULAR = {"entry": "entries", "currency": "currencies", "delivery": "deliveries"}


def counted(count: int, noun: str) -> str:
    """`counted(1, "brand")` -> "1 brand"; `counted(1200, "brand")` -> "1,200 brands"."""
    word = noun if count == 1 else IRREGULAR.get(noun, noun + "s")
    return f"{count:,} {word}"
