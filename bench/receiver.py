"""Figures 28-30: the receiver under a sustained load of signed webhooks, beside a bare Starlette app.

    .venv/bin/python -m bench.receiver [--quick] [--seconds S] [--concurrency N]

Two servers, each a process of its own on loopback, both running, loaded in
turn by the same load script (httpx, `--concurrency` requests in flight) in
interleaved windows that add up to `--seconds` each (after one warm-up window
each), with pre-signed deliveries of the same shape (each its own `svix-id`,
so none is a duplicate):

- "receiver": `giftdesk listen` on a profile pointed at a simulator in this
  process, verifying each webhook, keeping it in the inbox (fsync'd commit,
  shared by the deliveries waiting together) before the 200, writing its
  access log (to /dev/null) and processing product events (one coalesced
  sync a minute);
- "bare": a Starlette app answering 200 without reading anything
  (`python -m bench.receiver --bare PORT`), served by uvicorn as the receiver is.

Figures: deliveries acknowledged (2xx) per second, receiver against bare;
p50 and p99 of the time from sending a delivery to its 2xx. No targets: the
fsync each answer waits for is the point of the receiver, and its cost is
the disk's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime

from bench.common import Figure, print_figures, private_dirs

SECRET_VARIABLE = "BENCH_WEBHOOK_SECRET"
PER_SECOND_AT_MOST = 3000  # deliveries signed per second of window: more than either server answers here


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_bare(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def ok(request):
        return JSONResponse({"received": True})

    app = Starlette(routes=[Route("/webhooks", ok, methods=["POST"]), Route("/health", ok, methods=["GET"])])
    uvicorn.run(
        app, host="127.0.0.1", port=port, log_config=None, access_log=False, lifespan="off", log_level="warning"
    )


def _wait_healthy(port: int, process: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the server under test did not start")
        time.sleep(0.05)


def _deliveries(secret: str, count: int) -> list[tuple[bytes, dict[str, str]]]:
    from standardwebhooks import Webhook

    signer = Webhook(secret)
    now = datetime.now(UTC)
    signed = []
    for number in range(count):
        message_id = f"msg_{uuid.uuid4().hex}"
        body = json.dumps({"type": "productupdated.v1", "timestamp": now.isoformat(), "data": {"productId": number}})
        signed.append(
            (
                body.encode(),
                {
                    "svix-id": message_id,
                    "svix-timestamp": str(int(now.timestamp())),
                    "svix-signature": signer.sign(message_id, now, body),
                    "content-type": "application/json",
                },
            )
        )
    return signed


async def _load(
    url: str, deliveries: list[tuple[bytes, dict[str, str]]], seconds: float, concurrency: int
) -> tuple[float, list[float]]:
    """(2xx answers per second, each one's seconds from send to answer) over `seconds` of sustained load."""
    import httpx

    latencies: list[float] = []
    answered = 0
    next_delivery = 0
    deadline = time.monotonic() + seconds

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal answered, next_delivery
        while time.monotonic() < deadline and next_delivery < len(deliveries):
            body, headers = deliveries[next_delivery]
            next_delivery += 1
            sent = time.perf_counter()
            response = await http.post(url, content=body, headers=headers)
            if 200 <= response.status_code < 300:
                answered += 1
                latencies.append(time.perf_counter() - sent)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        started = time.monotonic()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        elapsed = time.monotonic() - started
    return answered / elapsed, latencies


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def figures(quick: bool = False, seconds: float | None = None, concurrency: int = 32) -> list[Figure]:
    from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential
    from tui.simulator.webhooks import initial_secret

    seconds = seconds or (4.0 if quick else 15.0)
    rounds = 2 if quick else 5  # interleaved windows: a load that changes meanwhile falls on both alike
    window = seconds / rounds
    credential = demo_credential("acme-sandbox")
    answered: dict[str, list[float]] = {"bare": [], "receiver": []}  # rates per window
    latencies: dict[str, list[float]] = {"bare": [], "receiver": []}
    with private_dirs(), SimulatorServer(SimulatorSettings(brands=20)) as sim:
        secret = initial_secret(sim.settings.seed, credential.name)
        env = {
            **os.environ,
            "GIFTDESK_BASE_URL": sim.base_url,
            "GIFTDESK_CLIENT_ID": credential.client_id,
            "GIFTDESK_CLIENT_SECRET": credential.client_secret,
            SECRET_VARIABLE: secret,
        }
        commands = {
            "bare": lambda port: [sys.executable, "-m", "bench.receiver", "--bare", str(port)],
            "receiver": lambda port: [
                sys.executable,
                "-m",
                "tui",
                "listen",
                "--port",
                str(port),
                "--webhook-secret-env",
                SECRET_VARIABLE,
                "--secret-env",
                SECRET_VARIABLE,
                "--rate-limit",
                "1000000",
            ],
        }
        ports = {name: _free_port() for name in commands}
        processes = {
            name: subprocess.Popen(command(ports[name]), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name, command in commands.items()
        }
        try:
            for name, process in processes.items():
                _wait_healthy(ports[name], process)
            deliveries = iter(_deliveries(secret, int(seconds * 2 * PER_SECOND_AT_MOST) + 200))
            for round_number in range(rounds + 1):  # the first round warms both up, and is not counted
                order = list(commands) if round_number % 2 else list(reversed(commands))
                for name in order:
                    batch = [next(deliveries) for _ in range(int(window * PER_SECOND_AT_MOST) if round_number else 100)]
                    rate, times = asyncio.run(
                        _load(f"http://127.0.0.1:{ports[name]}/webhooks", batch, window, concurrency)
                    )
                    if round_number:
                        answered[name].append(rate)
                        latencies[name].extend(times)
        finally:
            for process in processes.values():
                process.terminate()
                process.wait(timeout=30)
    ours, bare = (sum(answered[name]) / len(answered[name]) for name in ("receiver", "bare"))
    load = f"{concurrency} in flight, {rounds} interleaved windows of {window:g} s"
    return [
        Figure(
            28, f"receiver: signed webhooks acknowledged per second ({load})", ours, bare, "bare Starlette 200", "/s"
        ),
        Figure(
            29,
            "receiver: p50 time to 2xx",
            _percentile(latencies["receiver"], 0.5) * 1000,
            _percentile(latencies["bare"], 0.5) * 1000,
            "bare Starlette 200",
            "ms",
        ),
        Figure(
            30,
            "receiver: p99 time to 2xx",
            _percentile(latencies["receiver"], 0.99) * 1000,
            _percentile(latencies["bare"], 0.99) * 1000,
            "bare Starlette 200",
            "ms",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--bare", type=int, metavar="PORT", help=argparse.SUPPRESS)  # the baseline's own process
    args = parser.parse_args()
    if args.bare:
        serve_bare(args.bare)
        return
    print_figures(figures(args.quick, args.seconds, args.concurrency))


if __name__ == "__main__":
    main()
