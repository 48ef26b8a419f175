"""Privacy gaps of issue 12: screenshots masked and private, copied secrets cleared, the demo's own data.

Against the real simulator and real files in the test's own folders.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
from apps import app_on, settle, until
from apps import notifications as notes
from click.testing import CliRunner
from textual.widgets import Input

from tui.app import build_app
from tui.cli import main
from tui.demo import DemoBackend
from tui.local.demo_data import enter_demo_data_dir
from tui.local.exports import export_dir, screenshot_dir, write_export
from tui.local.first_pages import first_page_path
from tui.local.kept_styles_file import kept_styles_path
from tui.local.logs import setup_logging
from tui.local.storage import AuditLog, ChosenAccounts, RecentOrders
from tui.simulator import demo_credential
from tui.startup import load_settings
from widgets.masked import MaskedValue

SIZE = (120, 36)
RECIPIENT = "private.person@example.com"


def place_sold(sim, product: int = 502, value: float = 20.0) -> tuple[str, dict]:
    """An order whose one card is Sold (Tea & Co cards have a PIN); returns its RequestId and that card."""
    request_id = str(uuid.uuid4())
    auth = demo_credential("acme-sandbox").auth
    with httpx.Client(base_url=sim.base_url, auth=auth) as http:
        body = {
            "RequestId": request_id,
            "AccountId": 1001,
            "Products": [{"ProductId": product, "Value": value, "Quantity": 1}],
        }
        assert http.post("/api/integration/v1.0/orders/checkout", json=body).status_code == 200
        for _ in range(400):  # 20 s at most; the simulator takes 0.6 s
            order = http.get(f"/api/integration/v1.0/orders/{request_id}").json()
            if order["status"] == "Succeeded":
                return request_id, order["items"][0]["cards"][0]
            time.sleep(0.05)
    raise AssertionError("the order did not succeed")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def saved_screenshots() -> list[Path]:
    folder = screenshot_dir()
    return sorted(folder.glob("*.svg")) if folder.exists() else []


async def screenshot(pilot) -> str:
    pilot.app.deliver_screenshot()  # what the palette's Screenshot calls
    await until(pilot, lambda: saved_screenshots() or any("Screenshot not saved" in n for n in notes(pilot.app)))
    await pilot.pause()
    [path] = saved_screenshots()
    return path.read_text(encoding="utf-8")


def drawn_text(svg: str) -> str:
    """What a screenshot shows: its text, without the style block and the tags (whose class names
    are hashes: a four-digit PIN was found in one by chance)."""
    import html

    without_style = re.sub(r"<style>.*?</style>", "", svg, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", "", without_style)).replace("\xa0", " ")


# --- screenshots ---------------------------------------------------------------------------


async def test_a_screenshot_masks_the_recipient_and_is_private(sim, tmp_path):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("payout")
        await pilot.pause()
        recipient = app.screen.query_one("#recipient", Input)
        recipient.value = RECIPIENT
        await pilot.pause()
        svg = await screenshot(pilot)
        assert "private.person" not in svg and "example.com" not in svg
        assert not recipient.password  # as it was, for the person typing
        [path] = saved_screenshots()
        assert path.parent == tmp_path / "data" / "screenshots"
        assert mode(path.parent) == 0o700 and mode(path) == 0o600
        assert f"Saved, private values masked: {path}" in notes(app)


async def open_sold_order(app, pilot, request_id: str):
    """The Order screen on `request_id`, once its cards are Sold (codes to reveal and copy)."""
    await app.navigate("order", request_id)
    screen = app.screen
    await until(pilot, lambda: screen.order is not None and screen.order.status == "Succeeded")
    return screen


async def test_a_screenshot_masks_a_revealed_card_code_and_shows_it_again_after(sim):
    request_id, card = place_sold(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sold_order(app, pilot, request_id)
        await pilot.press("v")
        code = screen.query_one("#card-code", MaskedValue)
        assert code.revealed
        shown = drawn_text(await screenshot(pilot))
        assert card["serialNumber"] in shown  # the text as drawn is read (so a code in it would be seen)
        assert card["cardCode"] not in shown and not re.search(rf"\b{card['pin']}\b", shown), shown
        assert code.revealed  # the person still sees what they asked to see


async def test_a_screenshot_that_cannot_be_written_says_where_and_why(sim, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder would be")
    monkeypatch.setenv("GIFTDESK_SCREENSHOT_DIR", str(blocker / "shots"))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        app.deliver_screenshot()
        await until(pilot, lambda: any("Screenshot not saved" in n for n in notes(app)))
        [said] = [n for n in notes(app) if "Screenshot not saved" in n]
        assert str(blocker / "shots") in said and "GIFTDESK_SCREENSHOT_DIR" in said


# --- the clipboard ---------------------------------------------------------------------------


async def test_a_copied_code_is_cleared_from_the_clipboard_and_the_toast_says_when(sim, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CLIPBOARD_SECONDS", "5")  # long enough to see it copied first, on a loaded machine
    request_id, card = place_sold(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_sold_order(app, pilot, request_id)
        await pilot.press("c")
        assert app.clipboard == card["cardCode"]
        assert f"The code of card {card['serialNumber']} is on the clipboard. It is cleared from it in 5 s." in notes(
            app
        )
        await until(pilot, lambda: app.clipboard == "", timeout=30)  # an empty OSC 52 write


async def test_something_copied_since_is_not_cleared(sim, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CLIPBOARD_SECONDS", "2")  # at 0.3 s a loaded machine cleared it before the first look
    request_id, card = place_sold(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_sold_order(app, pilot, request_id)
        await pilot.press("n")  # the PIN: cleared later
        assert app.clipboard == card["pin"]
        app.copy_to_clipboard("something the person copied since")
        await pilot.pause(2.5)
        assert app.clipboard == "something the person copied since"


async def test_clearing_can_be_turned_off(sim, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CLIPBOARD_SECONDS", "0")
    request_id, card = place_sold(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_sold_order(app, pilot, request_id)
        await pilot.press("c")
        assert f"The code of card {card['serialNumber']} is on the clipboard." in notes(app)


# --- the demo's own data -----------------------------------------------------------------------


# The demo changes this process's GIFTDESK_* folder variables; conftest's isolated_dirs puts them back.


def test_the_demo_records_in_its_own_folder_and_a_new_run_starts_empty(tmp_path):
    real = tmp_path / "data"
    backend = DemoBackend.start()
    try:
        demo = Path(os.environ["GIFTDESK_DATA_DIR"])
        assert demo != real and mode(demo) == 0o700
        AuditLog().record(
            profile="demo-sandbox", environment="sandbox", action="new-order", subject="R-1", outcome="placed"
        )
        RecentOrders().record("demo-sandbox", "R-1", "Succeeded")
        ChosenAccounts().set("demo-sandbox", "sandbox", 1001)
        assert {p.name for p in demo.iterdir()} >= {
            "audit.jsonl",
            AuditLog().path.name,
            RecentOrders().path.name,
            ChosenAccounts().path.name,
        }
        assert not real.exists() or not list(real.iterdir())
        # Exports, screenshots and the log too (issue 26): the README says the demo keeps its own.
        assert screenshot_dir() == demo / "screenshots" and export_dir() == demo / "exports"
        assert setup_logging() == demo / "log" / "giftdesk.log"
        write_export("watch", ["Kind"], [["order"]], "csv")
        assert [path.parent for path in (demo / "exports").iterdir()] == [demo / "exports"]
        # The next run (a new process) gets a new, empty folder.
        fresh = enter_demo_data_dir({"GIFTDESK_DATA_DIR": str(real)})
        assert fresh != demo and not list(fresh.iterdir())
    finally:
        backend.stop()


async def test_a_demo_tui_writes_nothing_outside_its_own_folder_but_its_kept_first_page_and_styles(tmp_path):
    # The README: `--demo` keeps its own. What it keeps between starts, as every profile does, is the catalog's
    # first page its start drew, in the cache dir, in a folder of the demo's own (tui.local.first_pages), and the
    # styles its start parsed (tui.local.kept_styles_file: Textual's rules, no data), which every start shares.
    settings = load_settings(None, demo=True, readonly=False, order=None)
    try:
        async with build_app(settings).run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert pilot.app.screen.query_one("#brands").row_count > 0
            await pilot.pause(0.5)
            await settle(pilot)
        outside = sorted(path for path in tmp_path.rglob("*") if path.is_file())
        assert outside == sorted([first_page_path("demo-sandbox", "sandbox", demo=True), kept_styles_path()])
        assert all(path.is_relative_to(tmp_path / "cache") for path in outside)
    finally:
        settings.demo.stop()


def test_a_demo_command_never_writes_the_real_audit_log(tmp_path):
    result = CliRunner().invoke(
        main, ["--demo", "order", "place", "--account", "1001", "--product", "102", "--value", "10", "--yes"]
    )
    assert result.exit_code == 0, result.output
    real = tmp_path / "data"
    assert not (real / "audit.jsonl").exists() and not AuditLog(real / "audit.jsonl").entries()
    assert AuditLog().entries()  # it was recorded, in the demo's own folder


def test_a_demo_debug_log_is_in_the_demos_folder_never_the_real_one(tmp_path):
    result = CliRunner().invoke(main, ["--demo", "--debug", "accounts"])
    assert result.exit_code == 0, result.output
    demo = Path(os.environ["GIFTDESK_DATA_DIR"])
    assert demo.name.startswith("giftdesk-demo-")
    assert f"debug log: {demo / 'log' / 'giftdesk.log'}" in result.output
    assert not (tmp_path / "log").exists()


def test_the_demos_folder_is_removed_when_the_tui_process_is_killed():
    # A parent that starts the demo, says its folder once the service serves, and is killed on the spot.
    parent = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio, os, signal\nfrom tui.demo import DemoBackend\nbackend = DemoBackend.start()\n"
            "asyncio.run(backend.wait_ready())\nprint(os.environ['GIFTDESK_DATA_DIR'], flush=True)\n"
            "os.kill(os.getpid(), signal.SIGKILL)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert parent.returncode == -signal.SIGKILL
    folder = Path(parent.stdout.strip())
    assert folder.name.startswith("giftdesk-demo-")
    deadline = time.monotonic() + 30  # the demo's service sees its stdin close, ends, and removes the folder
    while folder.exists():
        assert time.monotonic() < deadline, "the demo's folder outlived its process"
        time.sleep(0.1)


def test_the_demos_folder_is_removed_when_the_demo_stops():
    backend = DemoBackend.start()
    folder = Path(os.environ["GIFTDESK_DATA_DIR"])
    backend.stop()
    assert not folder.exists()
