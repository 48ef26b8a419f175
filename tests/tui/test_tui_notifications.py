"""The Notifications screen with Pilot: load, edit, validate, save with read-back, and the
listener panel end to end (place order -> callback -> order shown final)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from apps import app_on, until
from apps import rendered as text_of
from textual.widgets import Button, DataTable, Input

from tui.api.models import NotificationConfig, OrderLine, PlaceOrder
from tui.local.storage import NOTIFICATION_CHANGE, AuditLog
from tui.screens.notifications import (
    CALLBACKS_OFF,
    PRODUCTION_PHRASE,
    NotificationsScreen,
    differing_fields,
    url_problem,
)
from widgets.confirm import ConfirmScreen

SECRET = "stored-secret-value-0123"
NOTIFICATION_PATH = "/api/Integration/v1/notification"
SANDBOX_ACCOUNT, FIXED_PRODUCT, FIXED_VALUE = 1001, 101, 25.0  # the simulator's showcase product


@pytest.fixture
def own_sim(sim_factory):
    """A simulator of our own: the callback configuration is per client, and tests must not share it."""
    return sim_factory(brands=20)


def configure(sim, demo_credentials, **fields) -> None:
    body = {
        "notificationUrl": "https://callbacks.example.com/giftdesk",
        "notificationUrlSandbox": "",
        "secretKey": SECRET,
        **fields,
    }
    response = httpx.post(sim.base_url + NOTIFICATION_PATH, json=body, auth=demo_credentials["acme-sandbox"].auth)
    response.raise_for_status()


def stored(sim, demo_credentials) -> dict:
    return httpx.get(sim.base_url + NOTIFICATION_PATH, auth=demo_credentials["acme-sandbox"].auth).json()


async def open_screen(pilot) -> NotificationsScreen:
    await pilot.press("5")
    screen = pilot.app.screen
    assert isinstance(screen, NotificationsScreen)
    await until(pilot, lambda: screen.stored is not None)
    await pilot.pause()
    return screen


async def type_into(pilot, screen, selector: str, text: str) -> None:
    screen.query_one(selector, Input).value = text
    await pilot.pause()


async def confirm(pilot, phrase: str | None = None) -> ConfirmScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    dialog = pilot.app.screen
    if phrase is not None:
        dialog.query_one("#phrase", Input).value = phrase
        await pilot.pause()
    await pilot.click("#confirm")
    return dialog


# --- rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "production", "ok"),
    [
        ("", True, True),
        ("https://cb.example.com/x", True, True),
        ("http://cb.example.com/x", True, False),
        ("HTTPS://cb.example.com", True, True),
        ("https://", True, False),
        ("cb.example.com", True, False),
        ("http://127.0.0.1:8787/callback", False, True),
        ("ftp://x", False, False),
    ],
)
def test_url_rules(url, production, ok):
    assert (url_problem(url, production=production) is None) is ok


def test_differing_fields_names_each_field():
    sent = NotificationConfig(notification_url="https://a.example", notification_url_sandbox="", secret_key="s1")
    assert differing_fields(sent, sent) == []
    other = NotificationConfig(notification_url="https://b.example", notification_url_sandbox="", secret_key="s2")
    assert differing_fields(sent, other) == ["production URL", "secret key"]


# --- configuration -------------------------------------------------------------------------


async def test_loads_the_stored_configuration_secret_masked(own_sim, demo_credentials):
    configure(own_sim, demo_credentials, notificationUrlSandbox="http://127.0.0.1:9/callback")
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        assert screen.query_one("#production-url", Input).value == "https://callbacks.example.com/giftdesk"
        assert screen.query_one("#sandbox-url", Input).value == "http://127.0.0.1:9/callback"
        secret = screen.query_one("#secret", Input)
        assert secret.value == SECRET and secret.password
        await pilot.press("ctrl+o")
        assert not secret.password and str(screen.query_one("#reveal", Button).label) == "Hide"


async def test_http_production_url_is_refused_before_anything_is_sent(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        await type_into(pilot, screen, "#production-url", "http://callbacks.example.com/giftdesk")
        assert "must be a public https:// URL" in text_of(screen, "#verdict")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert pilot.app.screen is screen  # no confirmation offered
    assert stored(own_sim, demo_credentials)["notificationUrl"] == "https://callbacks.example.com/giftdesk"


async def test_empty_production_url_says_callbacks_off_before_saving(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        await type_into(pilot, screen, "#production-url", "")
        assert text_of(screen, "#verdict") == CALLBACKS_OFF
        await pilot.press("ctrl+s")
        dialog = await confirm(pilot)
        assert CALLBACKS_OFF in dialog.summary
        await until(pilot, lambda: "matches" in text_of(screen, "#config-state"))
    assert stored(own_sim, demo_credentials)["notificationUrl"] == ""


async def test_save_reads_back_shows_the_match_and_audits_masked(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        await type_into(pilot, screen, "#sandbox-url", "http://127.0.0.1:9/callback")
        await pilot.press("ctrl+g")
        new_secret = screen.query_one("#secret", Input).value
        assert new_secret != SECRET and len(new_secret) >= 40
        await pilot.press("ctrl+s")
        await confirm(pilot)
        await until(pilot, lambda: "matches" in text_of(screen, "#config-state"))
    assert stored(own_sim, demo_credentials) == {
        "notificationUrl": "https://callbacks.example.com/giftdesk",
        "notificationUrlSandbox": "http://127.0.0.1:9/callback",
        "secretKey": new_secret,
    }
    [entry] = AuditLog().entries(action=NOTIFICATION_CHANGE)
    assert entry.outcome == "saved; read-back matches" and "secret changed" in entry.detail
    assert new_secret not in AuditLog().path.read_text()


async def test_read_back_mismatch_is_an_error(own_sim, demo_credentials, monkeypatch):
    from tui.api.client import ServiceClient

    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)

        real, reads = ServiceClient.get_notifications, []

        async def tampered(self):
            reads.append(1)
            if len(reads) == 1:  # the check before saving that nothing changed elsewhere: as stored
                return await real(self)
            return NotificationConfig(notification_url="https://elsewhere.example.com", secret_key=SECRET)

        monkeypatch.setattr(ServiceClient, "get_notifications", tampered)
        await pilot.press("ctrl+s")
        await confirm(pilot)
        await until(pilot, lambda: "differs" in text_of(screen, "#config-state"))
        assert "production URL" in text_of(screen, "#config-state")
    [entry] = AuditLog().entries(action=NOTIFICATION_CHANGE)
    assert entry.outcome.startswith("read-back differs")


async def test_production_save_needs_the_typed_phrase(own_sim, demo_credentials):
    async with app_on(own_sim, profile="demo-production").run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        await type_into(pilot, screen, "#production-url", "https://callbacks.example.com/live")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        assert pilot.app.screen.typed_phrase == PRODUCTION_PHRASE
        assert pilot.app.screen.query_one("#confirm", Button).disabled
        await confirm(pilot, PRODUCTION_PHRASE)
        await until(pilot, lambda: "matches" in text_of(screen, "#config-state"))
    assert stored(own_sim, demo_credentials)["notificationUrl"] == "https://callbacks.example.com/live"


async def test_read_only_offers_no_save(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim, readonly=True).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        assert not screen.query("#save") and not screen.query("#generate") and not screen.query("#use-url")
        assert screen.query_one("#production-url", Input).disabled
        assert screen.check_action("save", ()) is False  # not offered: hidden
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert pilot.app.screen is screen


# --- listener panel: the demo path ---------------------------------------------------------


def inbox_rows(screen) -> list[list[str]]:
    table = screen.query_one("#inbox", DataTable)
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


async def test_place_order_callback_arrives_and_order_is_shown_final(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    app = app_on(own_sim)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_screen(pilot)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: screen.hub.running)
        url = screen.hub.listener.url
        assert url in text_of(screen, "#listener-state")
        assert "HTTPS reverse proxy" in text_of(screen, "#listener-state")
        await pilot.press("ctrl+n")
        assert screen.query_one("#sandbox-url", Input).value == url
        await pilot.press("ctrl+s")
        await confirm(pilot)
        await until(pilot, lambda: "matches" in text_of(screen, "#config-state"))

        request_id = str(uuid.uuid4())
        client = await app.session.client()
        await client.place_order(PlaceOrder(request_id, SANDBOX_ACCOUNT, [OrderLine(FIXED_PRODUCT, 2, FIXED_VALUE)]))
        httpx.post(url, json={"orderId": 1, "status": "Succeeded", "requestId": "forged", "secretKey": "guess"})

        def settled(kind: str) -> list[str] | None:
            return next((row for row in inbox_rows(screen) if row[1] == kind and "Succeeded" in row[4]), None)

        await until(
            pilot, lambda: settled("callback") and settled("ordercompleted.v1")
        )  # both kinds, the demo's webhooks too
        good = settled("callback")
        assert good[2:] == [f"callback:{request_id}", "✓ accepted", f"order {request_id} Succeeded"]
        [forged] = [row for row in inbox_rows(screen) if "refused" in row[3]]
        assert "secretKey does not match" in forged[3] and "forged" not in " ".join(forged)
    with pytest.raises(httpx.TransportError):  # the app stopped the listener on exit
        httpx.get(url, timeout=1)


async def test_listener_survives_leaving_the_screen_and_stops_with_the_app(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    app = app_on(own_sim)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: screen.hub.running)
        url = screen.hub.listener.url
        await pilot.press("1")  # catalog is below: the Notifications screen is popped
        await pilot.pause()
        assert httpx.get(url).status_code == 405  # still answering (only POST is a delivery)
        await pilot.press("5")
        await pilot.pause()
        assert url in text_of(pilot.app.screen, "#listener-state")  # the new screen shows the same listener
    with pytest.raises(httpx.TransportError):
        httpx.get(url, timeout=1)


# --- snapshots: fixed values only (no ports, RequestIds or generated secrets on screen) -------


async def _loaded(pilot) -> None:
    await open_screen(pilot)


async def _production_emptied(pilot) -> None:
    screen = await open_screen(pilot)
    await type_into(pilot, screen, "#production-url", "")


async def _http_production(pilot) -> None:
    screen = await open_screen(pilot)
    await type_into(pilot, screen, "#production-url", "http://callbacks.example.com/giftdesk")


async def _listener_tab(pilot) -> None:
    screen = await open_screen(pilot)
    screen.query_one("#notifications-tabs").active = "listener-tab"
    await pilot.pause()


SNAPSHOTS = {
    "loaded": ({}, _loaded),
    "callbacks-off": ({}, _production_emptied),
    "http-refused": ({}, _http_production),
    "listener-stopped": ({}, _listener_tab),
    "readonly": ({"readonly": True}, _loaded),
    "production": ({"profile": "demo-production"}, _loaded),
}


@pytest.mark.parametrize("case", list(SNAPSHOTS))
def test_snapshot_80x24(snap_compare, own_sim, demo_credentials, case):
    configure(own_sim, demo_credentials, notificationUrlSandbox="http://127.0.0.1:8787/callback")
    options, run_before = SNAPSHOTS[case]
    assert snap_compare(app_on(own_sim, **options), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_160x48(snap_compare, own_sim, demo_credentials):
    configure(own_sim, demo_credentials, notificationUrlSandbox="http://127.0.0.1:8787/callback")
    assert snap_compare(app_on(own_sim), terminal_size=(160, 48), run_before=_loaded)


# --- changed elsewhere (issue 35, break 4) --------------------------------------------------------------

GIFTDESK = str(Path(sys.executable).parent / "giftdesk")


def set_from_a_shell(sim, demo_credentials, url: str) -> None:
    """`giftdesk notifications set --url URL` in a shell of its own, on the same credential as the app."""
    credential = demo_credentials["acme-sandbox"]
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
    }
    done = subprocess.run(
        [GIFTDESK, "notifications", "set", "--url", url], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


async def test_the_settings_are_read_again_when_the_screen_is_shown_again(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        set_from_a_shell(own_sim, demo_credentials, "https://changed.example.com/cb")
        await pilot.press("8")
        await pilot.press("5")
        assert pilot.app.screen is screen
        await until(pilot, lambda: screen.query_one("#production-url", Input).value == "https://changed.example.com/cb")
        assert "Changed elsewhere since last read: production URL" in text_of(screen, "#config-state")


async def test_a_stale_form_is_not_saved_over_newer_values_set_from_a_shell(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        set_from_a_shell(own_sim, demo_credentials, "https://changed.example.com/cb")
        await type_into(pilot, screen, "#sandbox-url", "http://127.0.0.1:9/callback")
        await pilot.press("ctrl+s")
        await confirm(pilot)
        await until(pilot, lambda: "Not saved: changed elsewhere" in text_of(screen, "#config-state"))
        assert screen.query_one("#sandbox-url", Input).value == "http://127.0.0.1:9/callback"  # the edits kept
    assert stored(own_sim, demo_credentials)["notificationUrl"] == "https://changed.example.com/cb"
    assert stored(own_sim, demo_credentials)["notificationUrlSandbox"] == ""


async def test_r_reads_the_settings_again_and_is_shown_in_the_footer(own_sim, demo_credentials):
    configure(own_sim, demo_credentials)
    async with app_on(own_sim).run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot)
        assert any(binding.key == "r" and binding.show for binding in NotificationsScreen.BINDINGS)
        set_from_a_shell(own_sim, demo_credentials, "https://changed.example.com/cb")
        screen.query_one("#notifications-tabs").focus()
        await pilot.press("r")
        await until(pilot, lambda: screen.query_one("#production-url", Input).value == "https://changed.example.com/cb")


async def test_the_listener_tab_says_another_process_receives_into_the_inbox(own_sim, demo_credentials):
    """A fresh heartbeat of another live process (as `giftdesk listen` writes it) replaces "stopped"."""
    import json
    import subprocess

    from tui.local.inbox import heartbeat_path, write_heartbeat

    configure(own_sim, demo_credentials)
    other = subprocess.Popen(["sleep", "60"])  # a live process of this machine, standing for `giftdesk listen`
    try:
        write_heartbeat("demo-sandbox", "http://127.0.0.1:8787/callback", "giftdesk listen")
        path = heartbeat_path("demo-sandbox")
        path.write_text(json.dumps({**json.loads(path.read_text()), "pid": other.pid}))
        app = app_on(own_sim)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_screen(pilot)
            said = text_of(screen, "#listener-state")
            assert "Another process receives into this inbox: giftdesk listen" in said
            assert "http://127.0.0.1:8787/callback" in said and "stopped" not in said
            other.kill()
            other.wait()
            await until(pilot, lambda: "The receiver is stopped" in text_of(screen, "#listener-state"))
    finally:
        other.kill()
        other.wait()
