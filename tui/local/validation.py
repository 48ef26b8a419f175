"""Checking plain data (a TOML table, keyword arguments) field by field, without pydantic.

The profiles and the config file were pydantic models; starting a command or
the TUI paid about 150 ms to import pydantic and build them (issue 16). These
few checks do what those models did, with the same messages ("name: Field
required", "environment: Input should be 'sandbox' or 'production'"), so a
config error reads as it always has. No Textual, no pydantic.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

REQUIRED: Any = object()  # `Fields.take` without a default: the field must be there

Check = Callable[[Any], Any]


class Problem(ValueError):
    """What is wrong with one value; `Fields.take` says where."""


class Invalid(ValueError):
    """Every problem found, each as (where, what); str() is 'where: what; ...'."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(describe(problems))


def describe(problems: list[tuple[str, str]]) -> str:
    return "; ".join(f"{where}: {what}" if where else what for where, what in problems)


class Fields:
    """The fields of one mapping, taken in order; every problem is collected, then `done()` raises them.

    As the pydantic models did: each field's problem in field order, then one
    "Extra inputs are not permitted" per unknown key, in the mapping's order.
    """

    def __init__(self, data: Mapping[str, Any], known: Collection[str]) -> None:
        self.data = data
        self.known = known
        self.problems: list[tuple[str, str]] = []

    def take(self, name: str, check: Check, default: Any = REQUIRED) -> Any:
        if name not in self.data:
            if default is REQUIRED:
                self.problems.append((name, "Field required"))
            return default
        try:
            return check(self.data[name])
        except Invalid as nested:
            self.problems.extend((f"{name}.{where}" if where else name, what) for where, what in nested.problems)
        except Problem as problem:
            self.problems.append((name, str(problem)))
        return None

    def done(self) -> None:
        self.problems.extend((key, "Extra inputs are not permitted") for key in self.data if key not in self.known)
        if self.problems:
            raise Invalid(self.problems)


def string(value: Any) -> str:
    if not isinstance(value, str):
        raise Problem("Input should be a valid string")
    return value


def one_of(*choices: str) -> Check:
    said = " or ".join(filter(None, (", ".join(map(repr, choices[:-1])), repr(choices[-1]))))

    def check(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise Problem(f"Input should be {said}")
        return value

    return check


def optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def whole_number(minimum: int) -> Check:
    """An int (never a bool, a float or a string of digits) of at least `minimum`."""

    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise Problem("Input should be a valid integer")
        if value < minimum:
            raise Problem(f"Input should be greater than or equal to {minimum}")
        return value

    return check


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_UNREADABLE_BOOLEAN = "Input should be a valid boolean, unable to interpret input"


def boolean(value: Any) -> bool:
    """A bool, or what reads as one: 0 and 1, 'yes' and 'no', 'true' and 'false', 'on' and 'off' (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise Problem(_UNREADABLE_BOOLEAN)
    if isinstance(value, (int, float)):
        if value in (0, 1):
            return bool(value)
        if isinstance(value, int) or value.is_integer():
            raise Problem(_UNREADABLE_BOOLEAN)
    raise Problem("Input should be a valid boolean")


def table_of(check: Check) -> Check:
    """A mapping of str keys whose every value passes `check`."""

    def check_table(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Problem("Input should be a valid dictionary")
        checked, problems = {}, []
        for key, item in value.items():
            try:
                checked[key] = check(item)
            except Problem as problem:
                problems.append((str(key), str(problem)))
        if problems:
            raise Invalid(problems)
        return checked

    return check_table
