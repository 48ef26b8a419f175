"""Demo clients, their credentials and their settlement accounts.

The secrets here are the simulator's own, fixed and documented in
docs/simulator.md: the one place giftdesk prints a secret on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

# The resources a credential may be given access to; app.py names each route's.
RESOURCES = frozenset(
    {"accounts", "catalog", "orders", "transactions", "rates", "notifications", "payouts", "webhooks"}
)


@dataclass(frozen=True)
class DemoCredential:
    name: str  # e.g. "acme-sandbox"
    client: str  # the client (merchant) the credential belongs to
    client_id: str
    client_secret: str
    environment: str  # "sandbox" | "production"
    access: frozenset[str] = RESOURCES  # any other resource answers 403 (valid credentials, no access)

    def may_use(self, resource: str) -> bool:
        return resource in self.access

    @property
    def auth(self) -> tuple[str, str]:
        """(client_id, client_secret), ready for httpx's `auth=`."""
        return (self.client_id, self.client_secret)

    def export_line(self, base_url: str) -> str:
        return (
            f"export GIFTDESK_BASE_URL={base_url} GIFTDESK_CLIENT_ID={self.client_id} "
            f"GIFTDESK_CLIENT_SECRET={self.client_secret} GIFTDESK_ENVIRONMENT={self.environment}"
        )


DEMO_CREDENTIALS: tuple[DemoCredential, ...] = (
    DemoCredential("acme-sandbox", "acme", "acme-sandbox-client", "sim-acme-sandbox-secret", "sandbox"),
    DemoCredential("acme-production", "acme", "acme-live-client", "sim-acme-live-secret", "production"),
    DemoCredential("other-sandbox", "other", "other-sandbox-client", "sim-other-sandbox-secret", "sandbox"),
    # Valid credentials with access to the catalog only: everything else answers 403.
    DemoCredential(
        "acme-catalog-only",
        "acme",
        "acme-catalog-client",
        "sim-acme-catalog-secret",
        "sandbox",
        access=frozenset({"catalog"}),
    ),
)


def demo_credential(name: str) -> DemoCredential:
    for credential in DEMO_CREDENTIALS:
        if credential.name == name:
            return credential
    raise KeyError(name)


@dataclass(frozen=True)
class AccountSeed:
    id: int
    currency: str
    balance: Decimal
    is_active: bool
    sandbox_mode: bool


# Listed per credential. acme-sandbox also lists 1090, an account flagged
# sandboxMode false, so a client can detect an environment mismatch; it is
# not orderable from sandbox (WrongAccount). 1003 has a small balance on
# purpose (InsufficientBalance); keep happy paths off it.
ACCOUNT_SEEDS: dict[str, tuple[AccountSeed, ...]] = {
    "acme-sandbox": (
        AccountSeed(1001, "USD", Decimal("100000.00"), True, True),
        AccountSeed(1002, "EUR", Decimal("50000.00"), True, True),
        AccountSeed(1003, "GBP", Decimal("25.00"), True, True),
        AccountSeed(1004, "CAD", Decimal("1000.00"), False, True),
        AccountSeed(1090, "USD", Decimal("500.00"), True, False),
    ),
    "acme-production": (
        AccountSeed(2001, "USD", Decimal("25000.00"), True, False),
        AccountSeed(2002, "EUR", Decimal("10000.00"), True, False),
        AccountSeed(2003, "GBP", Decimal("8000.00"), True, False),
        AccountSeed(2004, "JPY", Decimal("500000"), False, False),
    ),
    "other-sandbox": (
        AccountSeed(3001, "USD", Decimal("10000.00"), True, True),
        AccountSeed(3002, "AUD", Decimal("2000.00"), False, True),
    ),
    "acme-catalog-only": (),
}
