"""Wiring: the one way a profile's client, its local copies and its receiver's inbox are made, for the TUI
(tui.session, tui.listener_hub) and every command (tui.commands.runner, `giftdesk listen`) alike. No Textual, no
asyncio: a one-shot command imports this."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.local.config import Profile
    from tui.local.inbox import InboxStore
    from tui.local.report_copies import ReportCopies
    from tui.team.mode import TeamMode


def profile_client(profile: Profile, **options: Any) -> ServiceClient:
    """The profile's client: its secret resolved now, its answers bounded (the GIFTDESK_* limits), its turns booked
    in the profile's limiter, shared with its other processes (tui.local.limit_store). `options` go to
    ServiceClient (the notices, a transport, and for tests the limits or the limiter themselves)."""
    from tui.api.bounds import Bounds
    from tui.api.client import ServiceClient
    from tui.local.limit_store import profile_limiter
    from tui.local.secret_sources import resolve_secret

    if "limits" not in options:
        options["limits"] = Bounds.from_environ()
    if "limiter" not in options:  # a test's own: the profile's store is not opened
        options["limiter"] = profile_limiter(profile)
    return ServiceClient(
        profile.base_url,
        profile.client_id,
        resolve_secret(profile),
        environment=profile.environment,
        **options,
    )


def profile_copies(profile: Profile) -> ReportCopies:
    """The profile's local copies of the scarce reports (tui.local.report_copies), in its database."""
    from tui.api.limits import limits_table
    from tui.local.limit_store import profile_database
    from tui.local.report_copies import ReportCopies

    return ReportCopies(profile_database(profile.name, profile.environment), limits_table(profile.limits))


def profile_inbox(profile: Profile, team: TeamMode | None, *, any_thread: bool = False) -> InboxStore:
    """The inbox the profile's receiver keeps deliveries in: the team's in team mode, else this machine's.
    `any_thread`: the local one may be used from a thread other than the one that opened it (the receiver's writer)."""
    if team is not None:
        return team.inbox(profile.name, profile.environment)
    from tui.local.inbox import SqliteInbox

    return SqliteInbox(profile.name, check_same_thread=not any_thread)
