"""Which final statuses ended badly (DESIGN "Command line contract": `--exit-status` exits 6 on them).

Apart from tui.core.watching (which re-exports these) so that a one-shot
`order show --exit-status` need not load the watch scheduler and asyncio.
"""

from __future__ import annotations

BAD_ENDINGS = frozenset({"failed", "partialfailed", "unclaimed", "returned", "reversed"})
REFUSED = "Refused"  # the status shown when the service refused the lookup (e.g. 404 Order not found)
NEEDS_ATTENTION = BAD_ENDINGS | {REFUSED.lower()}  # lower case


def ended_badly(status: str | None) -> bool:
    """Failed, PartialFailed, Unclaimed, Returned, Reversed (and a refused lookup): a person must look."""
    return (status or "").strip().lower() in NEEDS_ATTENTION
