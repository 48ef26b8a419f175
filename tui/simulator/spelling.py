"""Every spelling of a path, as the provider (an ASP.NET service) takes it.

Its paths match without regard to case, and `v1` means `v1.0` (its own SDK calls `/api/Integration/v1/orders`,
integrators `/api/integration/v1.0/notification`): DESIGN.md "What the real provider sends and enforces". One
rule for every route: a request whose path matches a route's template that way is answered as that route, the
parts it carries (a RequestId, a weblink's token) kept exactly as sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

VERSION = re.compile(r"v(\d+)(?:\.0)?", re.IGNORECASE)
PARAMETER = re.compile(r"\{(\w+)(?::(\w+))?\}")


def _segment_pattern(segment: str) -> str:
    """A literal segment matched in any case, a version in either form."""
    version = VERSION.fullmatch(segment)
    if version:
        return rf"[vV]{version.group(1)}(?:\.0)?"
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in segment)


def _template_pattern(template: str) -> re.Pattern[str]:
    parts, position = [], 0
    for match in PARAMETER.finditer(template):
        literal = template[position : match.start()]
        parts.append("/".join(_segment_pattern(segment) for segment in literal.split("/")))
        parts.append(f"(?P<{match.group(1)}>.*)" if match.group(2) == "path" else f"(?P<{match.group(1)}>[^/]+)")
        position = match.end()
    parts.append("/".join(_segment_pattern(segment) for segment in template[position:].split("/")))
    return re.compile("".join(parts))


class AnySpelling:
    """ASGI middleware: rewrites a request's path to the spelling of the route it names (or leaves it be)."""

    def __init__(self, app: Any, templates: Iterable[str]) -> None:
        self.app = app
        self.templates = [(template, _template_pattern(template)) for template in templates]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = self.canonical(scope["path"])
            if path != scope["path"]:
                scope = {**scope, "path": path}  # raw_path as sent: a token's own encoding is kept
        await self.app(scope, receive, send)

    def canonical(self, path: str) -> str:
        for template, pattern in self.templates:
            match = pattern.fullmatch(path)
            if match:
                return _filled(template, match.groupdict())
        return path


def _filled(template: str, values: dict[str, str]) -> str:
    """The template with each parameter replaced by the value the request carried."""
    return PARAMETER.sub(lambda parameter: values[parameter.group(1)], template)
