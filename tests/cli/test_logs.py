"""Logging setup: a private rotating file, with secrets masked in messages, args and tracebacks."""

from __future__ import annotations

import logging
import logging.handlers
import stat
from pathlib import Path

import pytest

from tui.api.redact import register_secret
from tui.local import logs
from tui.local.logs import current_log_file, log_unexpected, setup_logging

CLIENT_SECRET = "cl1ent-s3cret-for-logs"
WEBLINK_TOKEN = "Zm9vYmFyYmF6cXV4cXV1eA"


@pytest.fixture(autouse=True)
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Points GIFTDESK_LOG_DIR at a tmp dir, and puts the root logger back afterwards."""
    directory = tmp_path / "logs"
    monkeypatch.setenv("GIFTDESK_LOG_DIR", str(directory))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in ("httpx", "httpcore")}
    yield directory
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


def written(path: Path) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return "".join(p.read_text() for p in sorted(path.parent.glob(path.name + "*")))


def test_log_file_is_private_under_the_log_dir(log_dir: Path) -> None:
    path = setup_logging()
    logging.getLogger("tui.test").info("hello")

    assert path == log_dir / "giftdesk.log" == current_log_file()
    assert "INFO tui.test: hello" in written(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_dir.stat().st_mode) == 0o700


def test_explicit_log_dir_wins(tmp_path: Path) -> None:
    assert setup_logging(log_dir=tmp_path / "explicit") == tmp_path / "explicit" / "giftdesk.log"


def test_secrets_are_masked_in_messages_and_args() -> None:
    register_secret(CLIENT_SECRET)
    path = setup_logging(debug=True)
    logger = logging.getLogger("tui.api.client")
    logger.info("secret is %s", CLIENT_SECRET)
    logger.debug(f"inline {CLIENT_SECRET} and recipient alice@example.com")
    logger.debug("POST %s", f"/api/Integration/v2/payout/redeem/{WEBLINK_TOKEN}%3D")

    text = written(path)
    assert CLIENT_SECRET not in text
    assert "alice@example.com" not in text
    assert WEBLINK_TOKEN not in text
    assert "secret is ****" in text


def test_tracebacks_are_masked() -> None:
    register_secret(CLIENT_SECRET)
    path = setup_logging()

    def fail() -> None:
        raise RuntimeError(f"auth failed for {CLIENT_SECRET} at /payout/status/{WEBLINK_TOKEN}")

    try:
        fail()
    except RuntimeError as exc:
        log_unexpected(exc)
    logging.getLogger("tui").warning("with stack %s", CLIENT_SECRET, stack_info=True)

    text = written(path)
    assert "Traceback (most recent call last)" in text
    assert "in fail" in text and "RuntimeError" in text
    assert CLIENT_SECRET not in text
    assert WEBLINK_TOKEN not in text


def test_debug_adds_detail_and_httpx_goes_through_the_filter() -> None:
    httpx_line = f"HTTP Request: GET https://api.example.com/api/Integration/v2/payout/status/{WEBLINK_TOKEN} 200"

    path = setup_logging(debug=False)
    logging.getLogger("tui.api.client").debug("detail only with --debug")
    logging.getLogger("httpx").info(httpx_line)
    assert "detail only" not in written(path)
    assert "HTTP Request" not in written(path)

    setup_logging(debug=True)
    logging.getLogger("tui.api.client").debug("detail only with --debug")
    logging.getLogger("httpx").info(httpx_line)
    logging.getLogger("httpcore.http11").debug("wire trace")
    text = written(path)
    assert "detail only with --debug" in text
    assert "HTTP Request: GET https://api.example.com/api/Integration/v2/payout/status/****" in text
    assert WEBLINK_TOKEN not in text
    assert "wire trace" not in text


def test_setting_up_twice_keeps_one_handler() -> None:
    path = setup_logging()
    setup_logging()
    logging.getLogger("tui").info("once")
    assert written(path).count("once") == 1


def test_rotated_files_stay_private(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs, "MAX_BYTES", 300)
    path = setup_logging()
    for number in range(20):
        logging.getLogger("tui").info("line %d %s", number, "x" * 40)

    files = sorted(path.parent.iterdir())
    assert len(files) == 1 + logs.BACKUP_COUNT
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


def test_a_log_folder_removed_while_running_is_made_again_and_no_traceback_reaches_the_terminal(
    log_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A temp cleaner (or the demo's own cleanup) may remove the folder; a later record, even a
    library's from a background thread that rolls the file over, must not print "--- Logging error ---"."""
    import shutil

    path = setup_logging()
    logging.getLogger("tui.test").info("before")
    shutil.rmtree(log_dir)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.handlers.RotatingFileHandler):
            handler.close()  # as after a rollover: the next record opens the file again
    logging.getLogger("psycopg.pool").warning("after")

    assert "Traceback" not in capsys.readouterr().err
    assert "after" in written(path)


def test_a_log_that_cannot_be_written_is_said_in_one_line(log_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    setup_logging()
    shutil.rmtree(log_dir)
    log_dir.write_text("a file where the folder was")
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.handlers.RotatingFileHandler):
            handler.close()
    logging.getLogger("tui.test").warning("first")
    logging.getLogger("tui.test").warning("second")

    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("cannot write its log") == 1
