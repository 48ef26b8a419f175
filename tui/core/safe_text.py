"""Outside text made safe to display (DESIGN rule 8), with no Textual.

Text from the service, a callback, a file or a paste may hold escape
sequences, OSC clipboard writes, BEL, CR, backspace, bidirectional overrides
and zero-width characters. `visible()` returns a string in which every such
character is replaced by a visible stand-in, so nothing reaches the terminal
as a control and nothing is silently dropped. The CLI prints `visible(text)`;
the TUI wraps it in a literal Rich Text (widgets.safe_text), never markup.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Unicode categories that are not drawn as themselves: controls (C0, DEL, C1),
# formats (bidi overrides, zero-width joiners, BOM), separators, surrogates.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_CONTROL_PICTURES = 0x2400  # U+2400 SYMBOL FOR NULL .. U+241F: one picture per C0 control
_ELLIPSIS = "…"
_REPLACEMENT = "\ufffd"  # one cell for a hidden character where the length must not change


@lru_cache(maxsize=1024)
def _stand_in(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(_CONTROL_PICTURES + code)  # ESC -> ␛, BEL -> ␇, CR -> ␍
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"  # C1 controls, bidi and zero-width characters: named, not obeyed


def _is_hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def visible(text: object, *, multiline: bool = False, limit: int | None = None) -> str:
    """`text` as a string with every control or invisible character shown as a stand-in.

    multiline: keep line feeds (and turn tabs into spaces) for description panes;
        otherwise a line feed is shown as ␊ so that a table cell stays one line.
    limit: show at most this many characters, then say how many there were (unless saying so is no shorter).
    """
    raw = "" if text is None else str(text)
    suffix = f"{_ELLIPSIS} ({len(raw):,} characters)" if limit is not None and len(raw) > limit else ""
    if suffix and limit is not None and len(raw) > limit + len(suffix):  # a cut that would save nothing is not made
        raw = raw[:limit]
    else:
        suffix = ""
    if raw.isprintable():  # no Cc, Cf, Zl, Zp or Cs character (nor any other but a space): nothing to replace
        return raw + suffix  # the common case, without a per-character walk
    parts = []
    for char in raw:
        if multiline and char == "\n":
            parts.append(char)
        elif multiline and char == "\t":
            parts.append("    ")
        elif _is_hidden(char):
            parts.append(_stand_in(char))
        else:
            parts.append(char)
    return "".join(parts) + suffix


def visible_in_place(text: str) -> str:
    """`text` with each hidden character replaced by exactly one stand-in (a text field's cursor stays in step).

    C0 controls and DEL get their control pictures as in `visible`; every other hidden character
    (C1, bidi, zero-width) becomes U+FFFD. Nothing is dropped: the length is the same.
    """
    if text.isprintable():  # as in `visible`: no hidden character
        return text
    return "".join(
        (_stand_in(char) if ord(char) < 0x20 or char == "\x7f" else _REPLACEMENT) if _is_hidden(char) else char
        for char in text
    )


def is_safe(text: str, *, multiline: bool = False) -> bool:
    """True when `text` holds no character that `visible` would replace."""
    return all(not _is_hidden(char) or (multiline and char == "\n") for char in text)


def json_visible(document: str) -> str:
    """JSON text (from `json.dumps`) with every hidden character written as a `\\uXXXX` escape.

    The same JSON value, so `--json` stays exact; but a C1 control, a bidi override or a
    zero-width character, which `json.dumps(ensure_ascii=False)` leaves raw, never reaches
    the terminal. Line feeds between values (indentation) stay.
    """
    if document.isascii():
        return document.replace("\x7f", "\\u007f")
    return "".join(_json_escape(char) if char != "\n" and _is_hidden(char) else char for char in document)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # outside the BMP: a surrogate pair, as JSON writes it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
