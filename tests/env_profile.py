"""The environment profile (GIFTDESK_BASE_URL, _CLIENT_ID, _CLIENT_SECRET, _ENVIRONMENT) on a simulator, as a
script would set it: shared by the command-line tests."""

from __future__ import annotations


def use_credential(monkeypatch, sim, credential) -> None:
    for name, value in (
        ("BASE_URL", sim.base_url),
        ("CLIENT_ID", credential.client_id),
        ("CLIENT_SECRET", credential.client_secret),
        ("ENVIRONMENT", credential.environment),
    ):
        monkeypatch.setenv(f"GIFTDESK_{name}", value)
