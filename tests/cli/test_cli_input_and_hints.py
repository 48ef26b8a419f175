"""Bad input refused before anything is sent or printed, and hints that say what is true (issue 24, items 16-18)."""

from __future__ import annotations

import functools
import json

import httpx
import pytest
from click.testing import CliRunner

from tui.api.client import RetryPolicy
from tui.cli import main
from tui.commands import runner

real_build_client = runner.build_client
ACCOUNTS = {"accounts": [{"id": 1001, "currency": "USD", "balance": 100, "isActive": True, "sandboxMode": True}]}


def giftdesk(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def service(monkeypatch):
    """service(handler) -> the requests sent: commands talk to a MockTransport; waits are recorded, not slept."""
    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client-1")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "secret-1")
    sent: list[httpx.Request] = []
    waits: list[float] = []

    def install(handler):
        def recording(request: httpx.Request) -> httpx.Response:
            sent.append(request)
            if request.url.path.endswith("/accounts"):
                return httpx.Response(200, json=ACCOUNTS)
            return handler(request)

        async def recorded_wait(seconds: float) -> None:
            waits.append(seconds)

        monkeypatch.setattr(
            runner,
            "build_client",
            functools.partial(
                real_build_client,
                sleep=recorded_wait,
                retry=RetryPolicy(attempts=3),
                transport=httpx.MockTransport(recording),
            ),
        )
        return sent, waits

    return install


def never(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"nothing should be sent: {request.method} {request.url}")


# --- item 16: values and base URLs -----------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "0", "-5", "10.001", "abc"])
def test_a_face_value_that_is_no_amount_is_refused_before_anything_is_sent_or_printed(service, value):
    sent, _ = service(never)
    result = giftdesk("order", "place", "--account", "1001", "--product", "101", "--value", value)
    assert result.exit_code == 2
    assert "Face value must" in result.stderr and "RequestId" not in result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert sent == []


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:abc", "https://host:99999"])
def test_an_unusable_base_url_is_refused_clearly(monkeypatch, url):
    monkeypatch.setenv("GIFTDESK_BASE_URL", url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client-1")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "secret-1")
    for args in (["accounts"], ["order", "place", "--account", "1", "--product", "101", "--value", "25"]):
        result = giftdesk(*args)
        assert result.exit_code == 2 and "Traceback" not in result.stderr
        assert "GIFTDESK_" in result.stderr and "base_url" in result.stderr and "not a usable URL" in result.stderr
        assert result.stdout == ""


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:abc"])
def test_profiles_add_does_not_store_an_unusable_base_url(tmp_path, url):
    result = giftdesk(
        "profiles",
        "add",
        "p1",
        "--environment",
        "sandbox",
        "--base-url",
        url,
        "--client-id",
        "c1",
        "--secret-env",
        "SOME_VAR",
    )
    assert result.exit_code == 2 and "not a usable URL" in result.stderr
    config = tmp_path / "config" / "config.toml"
    assert not config.exists() or url not in config.read_text()


# --- item 17: a weblink of "." or ".." ------------------------------------------------------


@pytest.mark.parametrize("weblink", [".", "..", "%2e%2E", "https://payouts.example.test/redeem/.."])
@pytest.mark.parametrize("command", [["payout", "redeem"], ["payout", "status"]])
def test_a_dot_weblink_is_refused_locally(service, weblink, command):
    sent, _ = service(never)
    recipient = ["--wallet", "PayPal", "--email", "ann@example.com"] if command[1] == "redeem" else []
    result = giftdesk(*command, weblink, *recipient)
    assert result.exit_code == 2 and "is not a weblink token" in result.stderr
    assert sent == []


# --- item 18: hints that say what is true -------------------------------------------------


def test_a_timed_out_read_is_not_said_to_have_maybe_been_carried_out(service):
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    service(slow)
    result = giftdesk("order", "show", "6f1c0a55-0000-4000-8000-000000000001")
    assert result.exit_code == 5
    assert "may have been carried out" not in result.stderr and "outcome is unknown" not in result.stderr
    assert "a read changes nothing" in result.stderr


def test_a_5xx_on_redeem_says_to_check_the_payout_status(service):
    sent, _ = service(lambda request: httpx.Response(502, json="Bad gateway"))
    result = giftdesk("payout", "redeem", "tok123%3D", "--wallet", "PayPal", "--email", "ann@example.com")
    assert result.exit_code == 5
    assert "try again later" not in result.stderr.lower()
    assert "check its status before anything else: giftdesk payout status" in result.stderr
    assert [request.method for request in sent] == ["GET", "POST"]  # a 5xx on a redeem is not retried blindly


def test_a_place_order_pacing_429_waits_as_asked_and_retries(service):
    answers = iter([httpx.Response(429, headers={"Retry-After": "31"}), None])

    def paced(request: httpx.Request) -> httpx.Response:
        answer = next(answers)
        return answer or httpx.Response(200, json=json.loads(request.content)["RequestId"])

    sent, waits = service(paced)
    result = giftdesk("order", "place", "--account", "1001", "--product", "101", "--value", "25")
    assert result.exit_code == 0, result.stderr
    # The limiter holds the endpoint from the 429's arrival, so the wait is 31 s less the moments since.
    assert any(30 < wait <= 31 for wait in waits), waits
    assert [request.method for request in sent] == ["GET", "POST", "POST"]


def test_a_place_order_pacing_429_that_persists_says_so(service):
    service(lambda request: httpx.Response(429, headers={"Retry-After": "31"}))
    result = giftdesk("order", "place", "--account", "1001", "--product", "101", "--value", "25")
    assert result.exit_code == 5
    assert "another request for the same resource" not in result.stderr.lower()
    assert "pacing" in result.stderr and "same RequestId" in result.stderr
