"""Exports of what a list shows, as CSV or JSON, and screenshots, kept private (DESIGN rule 6).

Callers pass the rows exactly as shown (masked already); this module decides
where they go and how they are written: a giftdesk export folder created
0700, files written atomically 0600, a name that says what and when.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from tui.local.fileio import atomic_write, data_dir, ensure_private_dir

ExportFormat = Literal["csv", "json"]
FORMATS: tuple[ExportFormat, ...] = ("csv", "json")

# A cell a spreadsheet would run as a formula is written with a leading
# apostrophe: an export is data from outside too, shown, never obeyed.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def export_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """GIFTDESK_EXPORT_DIR, else <data dir>/exports."""
    override = environ.get("GIFTDESK_EXPORT_DIR")
    return Path(override) if override else data_dir(environ) / "exports"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "export"


# A plain signed number (a charge of -50.63), or an amount with its currency code
# (-50.63 USD), is not a formula: it is written as it is.
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9][0-9,]*(\.[0-9]+)?( [A-Z]{3})?")


def _spreadsheet_safe(cell: str) -> str:
    if cell.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(cell):
        return f"'{cell}"
    return cell


def to_csv(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Text as it is (spreadsheet-safe); numbers plainly; true/false as `yes`/`no`; nothing as an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(headers)
    writer.writerows([_csv_cell(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def _csv_cell(cell: object) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    return _spreadsheet_safe(str(cell))


def to_json(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    return json.dumps([dict(zip(headers, row, strict=True)) for row in rows], indent=2, ensure_ascii=False) + "\n"


def write_export(
    name: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    fmt: ExportFormat,
    *,
    directory: Path | None = None,
    now: datetime | None = None,
) -> Path:
    """Write the rows to a new file in the export folder and return its path."""
    if fmt not in FORMATS:
        raise ValueError(f"export format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    text = to_csv(headers, rows) if fmt == "csv" else to_json(headers, rows)
    return write_private_file(directory or export_dir(), name, fmt, text.encode("utf-8"), now=now)


def screenshot_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """GIFTDESK_SCREENSHOT_DIR, else <data dir>/screenshots."""
    override = environ.get("GIFTDESK_SCREENSHOT_DIR")
    return Path(override) if override else data_dir(environ) / "screenshots"


def write_screenshot(svg: str, *, directory: Path | None = None, now: datetime | None = None) -> Path:
    """A screenshot (SVG, already masked by the caller) as a new private file; returns its path."""
    return write_private_file(directory or screenshot_dir(), "screenshot", "svg", svg.encode("utf-8"), now=now)


def write_private_file(folder: Path, name: str, extension: str, data: bytes, *, now: datetime | None = None) -> Path:
    """A new file `<name>-<YYYYmmdd-HHMMSS>[-N].<extension>` in `folder` (made 0700), written 0600 atomically."""
    ensure_private_dir(folder)
    os.chmod(folder, 0o700)  # our own folder: private even if it was made otherwise
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    path = folder / f"{_slug(name)}-{stamp}.{extension}"
    suffix = 1
    while path.exists():
        suffix += 1
        path = folder / f"{_slug(name)}-{stamp}-{suffix}.{extension}"
    atomic_write(path, data)
    return path
