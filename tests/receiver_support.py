"""`giftdesk listen` as a real process for the receiver's tests: started on a free port against the
simulator, with the secrets it needs, waited for until /health answers."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

CALLBACK_SECRET = "listen-callback-secret"
WEBHOOK_VARIABLE = "TEST_WEBHOOK_SECRET"
START_SECONDS = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Listen:
    process: subprocess.Popen
    port: int
    out: Path
    err: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")


def start_listen(
    sim,
    folder: Path,
    *options: str,
    name: str = "listen",
    environ: dict[str, str] | None = None,
    file_limit: int | None = None,
    wait_healthy: bool = True,
) -> Listen:
    from tui.simulator.webhooks import initial_secret

    port = free_port()
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": "acme-sandbox-client",
        "GIFTDESK_CLIENT_SECRET": "sim-acme-sandbox-secret",
        "TEST_CALLBACK_SECRET": CALLBACK_SECRET,
        WEBHOOK_VARIABLE: initial_secret(sim.settings.seed, "acme-sandbox"),
        **(environ or {}),
    }

    def lower_file_limit() -> None:  # in the child, before it runs giftdesk
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, file_limit))

    command = [sys.executable, "-m", "tui", "listen", "--port", str(port), "--json"]
    command += ["--secret-env", "TEST_CALLBACK_SECRET", "--webhook-secret-env", WEBHOOK_VARIABLE, *options]
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    with open(out, "wb") as out_file, open(err, "wb") as err_file:
        process = subprocess.Popen(command, env=env, stdout=out_file, stderr=err_file, preexec_fn=lower_file_limit)
    listen = Listen(process, port, out, err)
    deadline = time.monotonic() + START_SECONDS
    while wait_healthy:
        try:
            if httpx.get(f"{listen.base_url}/health", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert process.poll() is None, listen.stderr()
        assert time.monotonic() < deadline, f"giftdesk listen did not start: {listen.stderr()}"
        time.sleep(0.05)
    return listen


def callback(request_id: str, secret: str = CALLBACK_SECRET) -> dict:
    return {
        "orderId": 1,
        "status": "Succeeded",
        "totalCards": 1,
        "createdOn": "2025-01-01T10:00:00.000",
        "completedOn": "2025-01-01T10:00:01.000",
        "secretKey": secret,
        "requestId": request_id,
    }


def post_json(connection, path: str, body: dict, headers: dict[str, str] | None = None) -> int:
    """POST over an http.client connection (kept alive): headers and body in one write, so a flood is not
    paced by delayed ACKs (httpx writes them apart: about 40 ms a request on loopback)."""
    import json

    connection.request("POST", path, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})})
    response = connection.getresponse()
    response.read()
    return response.status
