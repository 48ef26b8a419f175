"""Wiring: the TUI session's receiver (tui.listener), the work on its inbox (tui.inbox_work), and the inbox as
shown; kept by the session, not by a screen, so it keeps receiving while the person is elsewhere. No Textual.

A delivery takes the same path as under `giftdesk listen`: kept in the profile's inbox (the team's in team
mode) before it is answered, then acted on from there. Whoever shows it subscribes: `on_change` (something
shown changed), and `tell(message, title=..., severity=...)` for what a person should hear of at once (the
app's notifications). While it runs it writes the receiver's heartbeat (tui.local.inbox), so that another
process showing the same inbox knows someone is receiving into it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from tui.api.redact import register_secret
from tui.core.tasks import said_task
from tui.demo import register_demo_webhooks
from tui.inbox_work import InboxWork, OrderWatch, is_order_event, mirror_syncer
from tui.listener import Receiver, webhook_secrets_from_env
from tui.local.inbox import Delivery, Heartbeat, InboxStore, forget_heartbeat, write_heartbeat
from tui.profile_services import profile_inbox

if TYPE_CHECKING:
    from tui.session import Session
    from tui.team.mode import TeamMode

LISTENER_CACHE_KEY = "callback-listener"
INBOX_ROWS = 200  # the newest deliveries shown
INBOX_SHOWN_FOR = timedelta(days=2)  # older ones are read with `giftdesk inbox --since`
HEARTBEAT_SECONDS = 5.0

Tell = Callable[..., None]  # tell(message, title=..., severity=..., timeout=...)


class ListenerHub:
    """Deliveries arrive on the receiver's thread and are handed to the session's loop without waiting
    (stopping never deadlocks)."""

    def __init__(self, session: Session, watch: OrderWatch, team: TeamMode | None, tell: Tell) -> None:
        self.session = session
        self.watch = watch
        self.team = team
        self.tell = tell
        self.listener: Receiver | None = None
        self.on_change: Callable[[], None] | None = None  # what shows the hub, while it is shown
        self._inbox: InboxStore | None = None
        self._work: InboxWork | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def of(cls, session: Session, watch: OrderWatch, team: TeamMode | None, tell: Tell) -> ListenerHub:
        hub = session.cache.get(LISTENER_CACHE_KEY)
        if hub is None:
            hub = session.cache[LISTENER_CACHE_KEY] = cls(session, watch, team, tell)
            session.when_closed(hub.stop_now)  # the receiver ends with the session, freeing its port
        return hub

    @property
    def running(self) -> bool:
        return self.listener is not None

    def _open_inbox(self, *, any_thread: bool = False) -> InboxStore:
        return profile_inbox(self.session.profile, self.team, any_thread=any_thread)

    @property
    def inbox(self) -> InboxStore:
        """The profile's inbox, opened on first use (on the app's thread)."""
        if self._inbox is None:
            self._inbox = self._open_inbox()
        return self._inbox

    def deliveries(self) -> list[Delivery]:
        """The newest deliveries of the last days, newest first (`giftdesk inbox` lists them all)."""
        return list(reversed(self.inbox.since(datetime.now(UTC) - INBOX_SHOWN_FOR)[-INBOX_ROWS:]))

    def elsewhere(self) -> Heartbeat | None:
        """Another process receiving into this inbox now (its heartbeat is fresh), if any."""
        from tui.local.inbox import read_heartbeat

        if self.running:
            return None
        return read_heartbeat(self.session.profile.name)

    async def start(self) -> None:
        """Expect the secret the service has stored: callbacks carry it (SPEC Events rule 3)."""
        client = await self.session.client()
        secret = (await client.get_notifications()).secret_key
        register_secret(secret)
        self._loop = asyncio.get_running_loop()
        profile = self.session.profile
        # Kept before it starts: a cancelled start must still leave it to stop. The TUI's receiver is on
        # loopback, for trying things: without a secret it says so (show_listener) rather than refusing.
        self.listener = Receiver(
            lambda: self._open_inbox(any_thread=True),
            callback_secret=secret,
            webhook_secrets=webhook_secrets_from_env(),
        )
        self.listener.subscribe(self._from_listener_thread)
        await asyncio.to_thread(self.listener.start)
        if profile.is_demo:  # the demo's simulator is told where to send its webhooks, as its portal would be
            self.listener.webhook_secrets = tuple(await register_demo_webhooks(profile, self.listener.webhook_url))
        self._work = InboxWork(
            self.inbox,
            self.session.client,
            self.watch,
            mirror_syncer(profile.mirror_name, profile.environment, self.session.client),
            on_done=lambda _event_id, _outcome: self._changed(),
            metrics=self.listener.metrics,
        )
        self._tasks = [
            said_task(self._work.run(), "giftdesk-inbox-work", self._work_stopped),
            said_task(self._beat(self.listener), "giftdesk-receiver-heartbeat", lambda _error: None),
        ]
        self._changed()

    async def stop(self) -> None:
        listener = self._stop_work()
        self._changed()
        if listener is not None:
            await asyncio.to_thread(listener.stop)  # joins the receiver's thread: not on the app's loop

    def stop_now(self) -> None:
        """Stop at once, from the app's thread (the session is ending; nothing awaits this)."""
        listener = self._stop_work()
        if listener is not None:
            listener.stop()
        if self._inbox is not None:
            self._inbox.close()
            self._inbox = None

    def _stop_work(self) -> Receiver | None:
        listener, self.listener = self.listener, None
        for task in self._tasks:
            task.cancel()
        self._tasks, self._work = [], None
        if listener is not None:
            forget_heartbeat(self.session.profile.name)
        return listener

    async def _beat(self, listener: Receiver) -> None:
        while True:
            await asyncio.to_thread(write_heartbeat, self.session.profile.name, listener.url, "giftdesk (TUI)")
            await asyncio.sleep(HEARTBEAT_SECONDS)

    def expect_secret(self, secret: str) -> None:
        """After a save, callbacks carry the new secret."""
        if self.listener is not None:
            register_secret(secret)
            self.listener.callback_secret = secret
            self._changed()

    def _from_listener_thread(self, delivery: Delivery) -> None:
        if self._loop is not None:  # set before the receiver starts, so always
            self._loop.call_soon_threadsafe(self._received, delivery)

    def _received(self, delivery: Delivery) -> None:
        if self._work is not None:
            self._work.wake()
        if delivery.accepted:
            if is_order_event(delivery.kind):  # product events come by the dozen: the table shows them
                self.tell(f"Order event {delivery.event_id} kept; settling its order.", title="Delivery")
        else:
            self.tell(
                f"A {delivery.kind} delivery was refused: {delivery.reason}. Nothing in it was used.",
                title="Delivery refused",
                severity="warning",
            )
        self._changed()

    def _work_stopped(self, error: BaseException) -> None:
        self.tell(
            f"The work on the inbox stopped ({type(error).__name__}: {error}). Deliveries are still kept "
            "and answered; stop and start the listener (or giftdesk) to act on them.",
            title="Listener",
            severity="error",
            timeout=10,
        )

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
