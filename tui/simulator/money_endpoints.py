"""The money trail's two endpoints: transactions and exchange rates (DESIGN.md, provider SDK facts).

Handlers take the request and the authenticated credential, like app.py's;
app.py only routes to them. Errors are 400 with `{"message": ...}`, as the provider's other endpoints.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from .credentials import DemoCredential
from .ledger import Ledger, LedgerQueryInvalid, parse_day_range, transactions_json
from .rates import UnknownCurrency, rates_json

UNSUPPORTED_CURRENCY = "Unsupported currency"


def transactions(ledger: Ledger):
    async def handler(request: Request, credential: DemoCredential) -> JSONResponse:
        try:
            start, end = parse_day_range(dict(request.query_params))
        except LedgerQueryInvalid as error:
            return JSONResponse({"message": str(error)}, status_code=400)
        found = ledger.between(credential.name, start, end)
        return JSONResponse(transactions_json(credential.client, found, start, end))

    return handler


async def exchange_rates(request: Request, credential: DemoCredential) -> JSONResponse:
    """No parameters: every rate based on USD; `baseCurrency`: every rate based on it; with `currency`: that one."""
    params = {key.lower(): value.strip() for key, value in request.query_params.items() if value.strip()}
    try:
        return JSONResponse(rates_json(params.get("basecurrency"), params.get("currency")))
    except UnknownCurrency:
        return JSONResponse({"message": UNSUPPORTED_CURRENCY}, status_code=400)
