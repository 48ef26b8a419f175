"""An unexpected error that stops the TUI (issue 12): status 1, and it says where the redacted traceback is."""

from __future__ import annotations

import logging

import pytest
from apps import app_on

from tui.local.logs import setup_logging


@pytest.fixture
def log_file(tmp_path):
    before = list(logging.getLogger().handlers)
    path = setup_logging(log_dir=tmp_path / "log")
    yield path
    for handler in [h for h in logging.getLogger().handlers if h not in before]:
        logging.getLogger().removeHandler(handler)
        handler.close()


def broken() -> None:
    raise LookupError("card code ABCD-EFGH-1234-5678 not in the table")


async def test_an_unexpected_error_exits_1_and_names_the_log(sim, log_file, capsys):
    app = app_on(sim)
    with pytest.raises(LookupError):
        async with app.run_test() as pilot:
            await pilot.pause()
            app.call_later(broken)
            await pilot.pause()
    assert app.return_code == 1  # `giftdesk` exits with it (tui/cli.py)
    said = capsys.readouterr().err  # printed on stderr as the app ends, wrapped to the terminal's width
    expected = f"giftdesk stopped on an unexpected error (LookupError). A redacted traceback is in {log_file}."
    assert "".join(said.split()) == "".join(expected.split())
    logged = log_file.read_text()
    assert "LookupError" in logged and "Traceback" in logged
