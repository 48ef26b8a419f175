"""What the receiver trusts: a callback whose secretKey matches, a webhook whose signature one of the endpoint's
secrets made (tui.listener); anything else is `Refused`, with the status it is answered and a fixed code. No Textual."""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from tui.api import bounds
from tui.api.errors import MalformedResponseError
from tui.local.inbox import CALLBACK

SECRET_MISMATCH_STATUS = 403  # no credential scheme to challenge with, so not 401


class Refused(Exception):
    """A delivery that is not trusted or not a delivery's shape: kept as refused, answered `status`."""

    def __init__(self, reason: str, status: int = 400, code: str = "shape") -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.code = code  # a few fixed words (metrics, the kept sample): reasons may carry numbers


def secret_matches(received: object, expected: str) -> bool:
    """Constant-time comparison; bytes, because compare_digest refuses non-ASCII str."""
    if not isinstance(received, str):
        return False
    return hmac.compare_digest(received.encode("utf-8"), expected.encode("utf-8"))


def json_object(body: bytes) -> dict[str, Any]:
    try:  # too deep, or an absurd number (1e999999, 5,000 digits): refused naming it, before any use
        data = bounds.loads(body, where="callback")
    except MalformedResponseError as error:
        raise Refused(error.message, code="not-json") from None
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise Refused("body is not JSON", code="not-json") from None
    if not isinstance(data, dict):
        raise Refused("body is not a JSON object", code="not-json")
    return data


def verified_callback(body: bytes, expected_secret: str) -> tuple[str, str, dict[str, Any]]:
    """(event id, kind, payload) of a callback whose secretKey matches; else Refused."""
    data = json_object(body)
    if not secret_matches(data.get("secretKey", ""), expected_secret):
        raise Refused("secretKey does not match the configured secret", SECRET_MISMATCH_STATUS, "secret")
    request_id = data.get("requestId")
    if not isinstance(request_id, str) or not request_id.strip():
        raise Refused("not a callback payload (requestId)")
    if not isinstance(data.get("status"), str):
        raise Refused("not a callback payload (status)")
    return f"callback:{request_id.strip()}", CALLBACK, data


def verified_webhook(
    body: bytes, headers: Mapping[str, str], secrets: Sequence[str]
) -> tuple[str, str, dict[str, Any]]:
    """(event id, event type, payload) of a webhook signed with one of `secrets`; else Refused."""
    from standardwebhooks import Webhook, WebhookVerificationError

    # The library reads the standard's `webhook-*` names; Svix sends `svix-*` (the same scheme).
    wanted = {
        name: headers.get(f"svix-{name}") or headers.get(f"webhook-{name}") or ""
        for name in ("id", "timestamp", "signature")
    }
    if not all(wanted.values()):
        raise Refused("missing svix-id, svix-timestamp or svix-signature", code="signature")
    if not secrets:
        raise Refused("no webhook secret is configured", code="no-secret")
    reason = ""
    for secret in secrets:
        try:
            Webhook(secret).verify(body, {f"webhook-{name}": value for name, value in wanted.items()}, json_parse=False)
        except WebhookVerificationError as error:
            reason = str(error).lower()  # the library's fixed texts: "message timestamp too old", ...
            continue
        except ValueError:  # a signature that is not `v1,<base64>`, or a body that is not UTF-8
            reason = "malformed signature or body"
            continue
        data = json_object(body)
        kind = data.get("type") or data.get("eventType")
        return wanted["id"], kind if isinstance(kind, str) and kind else "unknown", data
    raise Refused(reason, code="signature")
