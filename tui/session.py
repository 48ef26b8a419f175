"""One profile's connection: its client, its chosen account, its cached data.

Switching profile replaces the whole Session, so nothing cached for one
profile (accounts, catalog pages, an account id) can leak into another.
No Textual here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.local.config import Profile
    from tui.local.report_copies import ReportCopies
    from tui.local.state_files import ChosenAccounts

RetryNotice = Callable[[int, float, str], None]  # attempt, delay in s, reason
WaitNotice = Callable[[str, float, Any], None]  # endpoint, seconds, its tui.api.limits.Limit (or None)
# Secrets read without waiting (the demo's in memory, an environment variable); a command or a keyring may block.
SECRETS_AT_HAND = frozenset({"inline-demo", "env"})


class Session:
    def __init__(
        self,
        profile: Profile,
        *,
        readonly_flag: bool = False,
        chosen_accounts: ChosenAccounts | None = None,
        wait_ready: Callable[[], Awaitable[None]] | None = None,
        start_service: Callable[[], None] | None = None,
        on_retry: RetryNotice | None = None,
        on_wait: WaitNotice | None = None,
        client_options: dict[str, Any] | None = None,
    ) -> None:
        self.profile = profile
        # The flag and the profile's setting: either one makes it read-only.
        self.readonly = readonly_flag or profile.readonly
        self.cache: dict[str, Any] = {}
        self._chosen_accounts = chosen_accounts
        self._wait_ready = wait_ready
        self._start_service = start_service
        self._on_retry = on_retry
        self._on_wait = on_wait
        self._client_options = client_options or {}
        self._client: ServiceClient | None = None
        self._copies: ReportCopies | None = None
        self._cleanups: list[Callable[[], None]] = []
        self._client_lock = asyncio.Lock()
        self.account_id: int | None = self._remembered_account()

    @property
    def service_starting(self) -> bool:
        """True until the service the session waits for (the demo's simulator) is ready and the client built."""
        return self._wait_ready is not None and self._client is None

    def start_service(self) -> None:
        """Start the service the session waits for (the demo's, when its start put it off), not waiting for it."""
        if self._start_service is not None:
            self._start_service()

    @property
    def environment(self) -> str:
        return self.profile.environment

    @property
    def is_production(self) -> bool:
        return self.profile.environment == "production"

    def _remembered_account(self) -> int | None:
        if self._chosen_accounts is not None:
            remembered = self._chosen_accounts.get(self.profile.name, self.environment)
            if remembered is not None:
                return remembered
        return self.profile.default_account

    def choose_account(self, account_id: int) -> None:
        self.account_id = account_id
        if self._chosen_accounts is not None:
            self._chosen_accounts.set(self.profile.name, self.environment, account_id)

    async def client(self) -> ServiceClient:
        """The profile's client, built on first use (the secret may come from a slow command)."""
        async with self._client_lock:
            if self._client is None:
                if self.profile.secret.kind in SECRETS_AT_HAND:  # no thread hop before the first request
                    client = self._build_client()
                else:
                    client = await asyncio.to_thread(self._build_client)
                if self._wait_ready is not None:  # built first: the service starts meanwhile
                    try:
                        await self._wait_ready()
                    except BaseException:
                        await client.aclose()
                        raise
                self._client = client
            return self._client

    def _build_client(self) -> ServiceClient:
        from tui.profile_services import profile_client

        return profile_client(self.profile, on_retry=self._on_retry, on_wait=self._on_wait, **self._client_options)

    def copies(self) -> ReportCopies:
        """The profile's local copies of the scarce reports (tui.local.report_copies), opened on first use."""
        if self._copies is None:
            from tui.profile_services import profile_copies

            self._copies = profile_copies(self.profile)
        return self._copies

    def when_closed(self, cleanup: Callable[[], None]) -> None:
        """Run `cleanup` when the session ends (e.g. stop a listener it started, freeing its port)."""
        self._cleanups.append(cleanup)

    def release(self) -> None:
        """Stop what the session started besides its client; safe to call more than once."""
        while self._cleanups:
            self._cleanups.pop()()

    async def close(self) -> None:
        self.release()
        if self._copies is not None:
            self._copies.close()
            self._copies = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None
