"""Figure 6: CPU use of the TUI idle, and while it polls a payout, against the bare Textual app idle.

    .venv/bin/python -m bench.cpu_idle [--quick] [--seconds S]

Each app runs headless (Pilot, 160x48) in a fresh interpreter of its own; the
simulator runs in this process, so its work is not counted. After the first
rows are shown and a second to settle, the child reads its own CPU time
(all threads, `time.process_time`) over the window and prints the share of
one core. "Polls a payout": the Payout screen watching a payout that stays
Pending (the simulator's `stuck` recipient), with the product's own schedule.
Target (issue 9): at most the bare app's share plus half a percentage point.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import uuid

from bench.common import ROOT, Figure, module_command, print_figures, private_dirs

SIZE = (160, 48)
SETTLE_SECONDS = 1.0
SUBJECTS = ("bare", "giftdesk", "giftdesk-payout")
ALLOWANCE = 0.5  # percentage points over the bare app


def cpu_share(subject: str, base_url: str, weblink: str, seconds: float) -> float:
    """Percent of one core the child used over its idle window."""
    out = subprocess.run(
        module_command("bench.cpu_idle", "--child", subject, base_url, weblink, str(seconds)),
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out.strip().splitlines()[-1])


def stuck_payout(base_url: str) -> str:
    """A payout weblink whose payout stays Pending: ordered and redeemed on the simulator."""
    import httpx

    from tui.simulator import demo_credential

    auth = demo_credential("acme-sandbox").auth
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25}]}
    with httpx.Client(base_url=base_url, auth=auth) as client:
        client.post("/api/integration/v1.0/orders/checkout", json=body).raise_for_status()
        while (card := client.get(f"/api/integration/v1.0/orders/{request_id}").json()["items"][0]["cards"][0])[
            "status"
        ] != "Sold":  # only a Sold card's payout can be redeemed
            time.sleep(0.1)
        weblink = card["cardCode"]
        token = weblink.rstrip("/").rsplit("/", 1)[-1]
        redeem = {"wallet": "PayPal", "recipientEmail": "stuck.ann@example.com"}
        client.post(f"/api/Integration/v2/payout/redeem/{token}", json=redeem).raise_for_status()
    return weblink


def figures(quick: bool = False, seconds: float | None = None) -> list[Figure]:
    from tui.simulator import SimulatorServer, SimulatorSettings

    seconds = seconds or (3.0 if quick else 10.0)
    with private_dirs(), SimulatorServer(SimulatorSettings(timing="fast")) as sim:
        weblink = stuck_payout(sim.base_url)
        share = {subject: cpu_share(subject, sim.base_url, weblink, seconds) for subject in SUBJECTS}
    bare = share["bare"]
    return [
        Figure(
            6,
            f"CPU of the TUI idle for {seconds:g} s",
            share["giftdesk"],
            bare,
            "bare app idle",
            "% CPU",
            ALLOWANCE,
            "difference",
        ),
        Figure(
            6,
            f"CPU of the TUI polling a Pending payout for {seconds:g} s",
            share["giftdesk-payout"],
            bare,
            "bare app idle",
            "% CPU",
            ALLOWANCE,
            "difference",
        ),
    ]


# --- the child ------------------------------------------------------------------------------


def make_app(subject: str, base_url: str):
    if subject == "bare":
        from bench.bare_app import BareApp

        return BareApp(base_url)
    sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py: the demo profiles on a running simulator
    from apps import demo_profiles

    from tui.app import AppSettings, build_app

    return build_app(AppSettings(profiles=demo_profiles(base_url), profile_name="demo-sandbox"))


def rows_shown(app) -> bool:
    from textual.widgets import DataTable

    return any(table.row_count for table in app.screen.query(DataTable))


async def idle_share(subject: str, base_url: str, weblink: str, seconds: float) -> float:
    app = make_app(subject, base_url)
    async with app.run_test(size=SIZE):
        while not rows_shown(app):
            await asyncio.sleep(0.05)
        if subject == "giftdesk-payout":
            await app.navigate("payout", weblink)
        await asyncio.sleep(SETTLE_SECONDS)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        return 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 s windows instead of 10 s")
    parser.add_argument("--seconds", type=float)
    parser.add_argument(
        "--child", nargs=4, metavar=("SUBJECT", "BASE_URL", "WEBLINK", "SECONDS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        subject, base_url, weblink, seconds = args.child
        print(f"{asyncio.run(idle_share(subject, base_url, weblink, float(seconds))):.3f}")
        return
    print_figures(figures(args.quick, args.seconds))


if __name__ == "__main__":
    main()
