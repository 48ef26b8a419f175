"""What a person types to name a product and its face value: checked before anything is sent (exit 2 otherwise)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import click


class FaceValue(click.ParamType):
    """A face value as a person types it: a finite number above 0 with at most 2 decimals (checked before anything is sent)."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Decimal:
        if isinstance(value, Decimal):
            return value
        from tui.core.order_watch import DraftInvalid, face_value

        try:
            return face_value(str(value))
        except DraftInvalid as problem:
            self.fail(str(problem), param, ctx)


SKU = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def sku_argument(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A SKU as the catalog lists them (letters, digits, `.`, `_`, `-`), or a usage error (exit 2) saying so."""
    if value is None:
        return None
    if not SKU.fullmatch(value.strip()):
        raise click.BadParameter(
            f"{value!r} is not a SKU: give one as the v2.1 catalog lists it, like SIM-402 (letters, digits, . _ -)"
        )
    return value.strip()
