"""The styles a start parses, answered from the last start's (issue 33, figure 1).

Each start, Textual parses every style source it meets (its widgets' DEFAULT_CSS, giftdesk's TCSS): ~25 sources
and ~10 ms on the way to the first frame, always to the same rule sets for the same text, Textual and theme.
`KeptStyles` answers Textual's parse of a source from the rule sets the last start kept (unpickled, ~3 ms for all),
parses as Textual would any source it does not hold, and gives what this start used, to keep for the next. An entry
is keyed by all that the parse depends on: the source's text, where it was read from, its kind and scope, and the
stylesheet's variables (the theme's colours); the whole by Textual's version. Whether the file can be trusted is
tui.local.kept_styles_file's business.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from widgets.textual_private import answer_style_parses, stylesheet_variables

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from textual.css.model import RuleSet
    from textual.css.stylesheet import Stylesheet

log = logging.getLogger(__name__)
TEXTUAL = version("textual")
Key = tuple[str, str, str, bool, int, str]  # variables' digest, text, read from, default rules?, tie breaker, scope


class KeptStyles:
    def __init__(self, kept: bytes | None) -> None:
        self._kept = _loaded(kept)
        self._used: dict[Key, list[RuleSet]] = {}  # what the stylesheet asked for, to keep
        self._variables: tuple[Mapping[str, str], str] | None = None  # the variables last seen, and their digest

    @property
    def changed(self) -> bool:
        """Whether a source was parsed that the last start did not keep (then the rules are worth writing)."""
        return any(key not in self._kept for key in self._used)

    def answer(self, stylesheet: Stylesheet) -> None:
        """From now on, `stylesheet` parses through this."""

        def parse_rules(
            parse: Callable[..., list[RuleSet]],
            css: str,
            read_from: Any,
            is_default_rules: bool,
            tie_breaker: int,
            scope: str,
        ) -> list[RuleSet]:
            key = (self._digest(stylesheet), css, repr(read_from), is_default_rules, tie_breaker, scope)
            rules = self._kept.get(key)
            if rules is None:
                rules = parse(css, read_from, is_default_rules, tie_breaker, scope)
            self._used[key] = rules
            return rules

        answer_style_parses(stylesheet, parse_rules)

    def dumps(self) -> bytes | None:
        """What to keep; None when it cannot be pickled: the next start parses, as this one did."""
        try:
            return pickle.dumps({"textual": TEXTUAL, "rules": self._used}, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            log.warning("the start's styles are not kept: %s", error)
            return None

    def _digest(self, stylesheet: Stylesheet) -> str:
        variables = stylesheet_variables(stylesheet)
        if self._variables is None or self._variables[0] is not variables:  # a theme set is a new mapping
            digest = hashlib.sha256(repr(sorted(variables.items())).encode()).hexdigest()
            self._variables = (variables, digest)
        return self._variables[1]


def _loaded(kept: bytes | None) -> dict[Key, list[RuleSet]]:
    """The kept rule sets; none when there are none, they are another Textual's or they do not load."""
    if not kept:
        return {}
    try:
        loaded = pickle.loads(kept)
    except Exception:  # a cache: whatever it holds, the start goes on without it
        return {}
    if not isinstance(loaded, dict) or loaded.get("textual") != TEXTUAL or not isinstance(loaded.get("rules"), dict):
        return {}
    rules: dict[Key, list[RuleSet]] = loaded["rules"]
    return rules
