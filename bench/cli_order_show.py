"""Benchmark: `giftdesk order show ID --json` as a whole process, against
`python -c "import httpx; httpx.get(...)"` doing the same request.

Both run against one local simulator, interleaved, N times each; prints the
medians and their ratio (issue 2's target: at most 1.4x). Figures only.

    .venv/bin/python bench/cli_order_show.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs

    credential = demo_credential("acme-sandbox")
    giftdesk = str(Path(sys.executable).with_name("giftdesk"))
    with SimulatorServer(SimulatorSettings(timing="fast")) as sim:
        request_id = str(uuid.uuid4())
        body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25}]}
        httpx.post(f"{sim.base_url}/api/integration/v1.0/orders/checkout", json=body, auth=credential.auth).raise_for_status()
        url = f"{sim.base_url}/api/integration/v1.0/orders/{request_id}"
        env = {**os.environ, "GIFTDESK_BASE_URL": sim.base_url, "GIFTDESK_CLIENT_ID": credential.client_id,
               "GIFTDESK_CLIENT_SECRET": credential.client_secret}
        commands = {
            "giftdesk order show --json": [giftdesk, "order", "show", request_id, "--json"],
            "python -c httpx.get": [sys.executable, "-c",
                                    f"import httpx; print(httpx.get({url!r}, auth={credential.auth!r}, "
                                    "headers={'Accept': 'application/json'}).text)"],
        }
        for command in commands.values():  # warm the file cache once
            timed(command, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, command in commands.items():
                times[name].append(timed(command, env))

    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:28} median {median * 1000:7.1f} ms, best {min(times[name]) * 1000:7.1f} ms, {runs} runs")
    cli, baseline = medians.values()
    print(f"ratio {cli / baseline:.2f}x (target <= 1.4x)")


if __name__ == "__main__":
    main()
