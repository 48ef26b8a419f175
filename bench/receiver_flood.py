"""Figures 37-38: genuine deliveries while senders without credentials attack, beside the same receiver quiet.

    .venv/bin/python -m bench.receiver_flood [--quick] [--seconds S]

One `giftdesk listen` (behind a "proxy" on this machine: `--forwarded-allow-ips
127.0.0.1`, each sender's address in X-Forwarded-For), loaded with signed
webhooks from the provider's one address (`--concurrency` in flight) in
interleaved windows: quiet (that load alone) and attacked (that load, and
alongside it 500 slow connections dribbling their headers, each opened again
as soon as the receiver closes it, and 100 senders of webhooks with a bad
signature, each from an address of its own, as fast as they are answered).

Figures: genuine deliveries acknowledged per second attacked against quiet, and
p99 of the time to 2xx attacked against quiet (goal: at most 2x).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time

from bench.common import Figure, print_figures, private_dirs
from bench.receiver import SECRET_VARIABLE, _deliveries, _free_port, _load, _percentile, _wait_healthy

PROVIDER = "203.0.113.10"  # the genuine sender's address, as the proxy forwards it
SLOW_CONNECTIONS = 500
BAD_SENDERS = 100


async def _slow_sender(port: int, stop: asyncio.Event) -> None:
    """One connection dribbling its headers a line a second; opened again when the receiver closes it."""
    while not stop.is_set():
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /webhooks HTTP/1.1\r\nHost: x\r\n")
            while not stop.is_set():
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(reader.read(1), 1.0) == b"":
                        break  # closed by the receiver
                writer.write(b"X-Slow: 1\r\n")
        except OSError:
            await asyncio.sleep(0.1)
        finally:
            if writer is not None:
                writer.close()


async def _bad_sender(number: int, port: int, body: bytes, headers: dict[str, str], stop: asyncio.Event) -> None:
    import httpx

    forged = {
        **headers,
        "svix-signature": "v1,Zm9yZ2VkIHNpZ25hdHVyZSBvZiB0aGUgcmlnaHQgbGVuZ3RoISE=",
        "x-forwarded-for": f"198.51.{number // 200}.{number % 200}",
    }
    async with httpx.AsyncClient(timeout=30) as http:
        while not stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                await http.post(f"http://127.0.0.1:{port}/webhooks", content=body, headers=forged)


async def _attack(port: int, secret: str) -> None:
    """The attackers, in a process of their own (`--attack PORT`): until terminated."""
    stop = asyncio.Event()
    [(body, headers)] = _deliveries(secret, 1)
    attackers = [asyncio.create_task(_slow_sender(port, stop)) for _ in range(SLOW_CONNECTIONS)]
    attackers += [asyncio.create_task(_bad_sender(n, port, body, headers, stop)) for n in range(BAD_SENDERS)]
    await asyncio.gather(*attackers)


def _attacked(port: int, env: dict[str, str], batch, window: float, concurrency: int) -> tuple[float, list[float]]:
    command = [sys.executable, "-m", "bench.receiver_flood", "--attack", str(port)]
    attackers = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(2.0)  # the attack under way before the genuine load starts
        return asyncio.run(_load(f"http://127.0.0.1:{port}/webhooks", batch, window, concurrency))
    finally:
        attackers.terminate()
        attackers.wait(timeout=30)


def figures(quick: bool = False, seconds: float | None = None, concurrency: int = 16) -> list[Figure]:
    from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential
    from tui.simulator.webhooks import initial_secret

    seconds = seconds or (6.0 if quick else 20.0)
    rounds = 2 if quick else 4
    window = seconds / rounds
    credential = demo_credential("acme-sandbox")
    rates: dict[str, list[float]] = {"quiet": [], "attacked": []}
    latencies: dict[str, list[float]] = {"quiet": [], "attacked": []}
    with private_dirs(), SimulatorServer(SimulatorSettings(brands=20)) as sim:
        secret = initial_secret(sim.settings.seed, credential.name)
        env = {
            **os.environ,
            "GIFTDESK_BASE_URL": sim.base_url,
            "GIFTDESK_CLIENT_ID": credential.client_id,
            "GIFTDESK_CLIENT_SECRET": credential.client_secret,
            SECRET_VARIABLE: secret,
        }
        port = _free_port()
        command = [sys.executable, "-m", "tui", "listen", "--port", str(port), "--forwarded-allow-ips", "127.0.0.1"]
        command += ["--webhook-secret-env", SECRET_VARIABLE, "--secret-env", SECRET_VARIABLE, "--rate-limit", "1000"]
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_healthy(port, process)
            deliveries = iter(
                (body, {**headers, "x-forwarded-for": PROVIDER})
                for body, headers in _deliveries(secret, int(seconds * 2 * 600) + 400)
            )
            for round_number in range(rounds + 1):  # the first round warms up, and is not counted
                for name in ("quiet", "attacked") if round_number % 2 else ("attacked", "quiet"):
                    batch = [next(deliveries) for _ in range(int(window * 600) if round_number else 100)]
                    if name == "quiet":
                        rate, times = asyncio.run(
                            _load(f"http://127.0.0.1:{port}/webhooks", batch, window, concurrency)
                        )
                    else:
                        rate, times = _attacked(port, env, batch, window, concurrency)
                    if round_number:
                        rates[name].append(rate)
                        latencies[name].extend(times)
        finally:
            process.terminate()
            process.wait(timeout=30)
    attacked, quiet = (sum(rates[name]) / len(rates[name]) for name in ("attacked", "quiet"))
    load = f"{concurrency} in flight, {rounds} interleaved windows of {window:g} s"
    attack = f"{SLOW_CONNECTIONS} slow connections and {BAD_SENDERS} bad-signature senders alongside"
    return [
        Figure(
            37, f"receiver attacked: genuine deliveries per second ({attack}; {load})", attacked, quiet, "quiet", "/s"
        ),
        Figure(
            38,
            "receiver attacked: p99 time to 2xx of genuine deliveries",
            _percentile(latencies["attacked"], 0.99) * 1000,
            _percentile(latencies["quiet"], 0.99) * 1000,
            "quiet",
            "ms",
            limit=2.0,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--attack", type=int, metavar="PORT", help=argparse.SUPPRESS)  # the attackers' process
    args = parser.parse_args()
    if args.attack:
        asyncio.run(_attack(args.attack, os.environ[SECRET_VARIABLE]))
        return
    started = time.monotonic()
    print_figures(figures(args.quick, args.seconds, args.concurrency))
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
