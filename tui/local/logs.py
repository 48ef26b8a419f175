"""Logging to a private, rotating file, every record passing through the redaction filter.

No Textual here (a test checks it). GIFTDESK_LOG_DIR overrides the directory.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

from tui.api.redact import RedactionFilter
from tui.local.fileio import PRIVATE_FILE_MODE, ensure_private_dir
from tui.local.fileio import log_dir as default_log_dir

LOG_FILE = "giftdesk.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Third-party loggers: httpx's request lines are useful with --debug (the filter masks
# weblinks in them); httpcore's wire-level trace is noise, kept at WARNING always.
_HTTPX_LOGGERS = ("httpx",)
_QUIET_LOGGERS = ("httpcore", "asyncio", "markdown_it")

log = logging.getLogger("tui")


class _PrivateRotatingFileHandler(RotatingFileHandler):
    """A rotating file handler whose files are created mode 0600 (the default follows the umask).

    The folder is made again if something removed it while giftdesk ran (a temp cleaner, the
    demo's own cleanup); a log it cannot write is said in one line, never as a traceback.
    """

    _said_unwritable = False

    def _open(self) -> io.TextIOWrapper:
        ensure_private_dir(Path(self.baseFilename).parent)
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
        os.fchmod(fd, PRIVATE_FILE_MODE)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)  # setup_logging opens for append only

    def handleError(self, record: logging.LogRecord) -> None:
        if self._said_unwritable:
            return
        self._said_unwritable = True
        error = sys.exc_info()[1]
        sys.stderr.write(f"giftdesk: cannot write its log {self.baseFilename} ({error}); going on without it\n")


def setup_logging(debug: bool = False, log_dir: Path | str | None = None) -> Path:
    """Sends every logger's records to <log dir>/giftdesk.log through the redaction filter.

    Calling it again replaces the handler it installed before. Returns the log file's path.
    """
    directory = Path(log_dir) if log_dir is not None else default_log_dir()
    ensure_private_dir(directory)
    path = directory / LOG_FILE

    handler = _PrivateRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    # On the handler, not a logger: it then sees records from every logger, httpx's included.
    handler.addFilter(RedactionFilter())

    root = logging.getLogger()
    for previous in [h for h in root.handlers if isinstance(h, _PrivateRotatingFileHandler)]:
        root.removeHandler(previous)
        previous.close()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for name in _HTTPX_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO if debug else logging.WARNING)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return path


def current_log_file() -> Path | None:
    """The file setup_logging writes to, to tell the user where details are; None before setup."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, _PrivateRotatingFileHandler):
            return Path(handler.baseFilename)
    return None


def log_unexpected(exc: BaseException, message: str = "unexpected error") -> None:
    """Logs `exc` with its traceback; the filter masks secrets in both."""
    log.error("%s: %s", message, type(exc).__name__, exc_info=(type(exc), exc, exc.__traceback__))
