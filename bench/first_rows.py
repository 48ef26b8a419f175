"""The child of the launch benchmark (bench/demo_launch.py): one app, reporting its first rows.

    python -m bench.first_rows giftdesk|bare

Imports nothing before the app does, so neither launch pays for the benchmark.
"""

import os
import sys
import threading

SHOWN = b"first rows shown\n"
LINGER = "BENCH_LINGER_SECONDS"  # the warm-up launch: live on this long after the first rows, as a user's run would
SUBJECTS = ("giftdesk", "bare")
REPORT_FD = os.dup(1)  # Textual swaps sys.stdout while an app runs


def report_first_rows() -> None:
    """Patch Textual so that the first frame drawn after a DataTable rendered rows is reported.

    Rows "rendered" means DataTable.render_lines ran with rows in the table (so
    they are in the frame being composed); the report comes when that frame is
    handed to the driver. Same hook for both apps.
    """
    from textual.app import App
    from textual.widgets import DataTable

    rendered = reported = False
    render_lines = DataTable.render_lines
    display = App._display

    def noting_render_lines(table, crop):
        nonlocal rendered
        lines = render_lines(table, crop)
        rendered = rendered or (table.row_count > 0 and not table.loading)
        return lines

    def reporting_display(app, screen, renderable) -> None:
        nonlocal reported
        display(app, screen, renderable)
        if rendered and renderable is not None and not reported:
            reported = True
            os.write(REPORT_FD, SHOWN)
            linger = float(os.environ.get(LINGER, "0"))
            if not linger:
                os._exit(0)  # the figure ends here; nothing to clean up in a throwaway process
            threading.Timer(linger, os._exit, (0,)).start()

    DataTable.render_lines = noting_render_lines
    App._display = reporting_display


def run_child(subject: str) -> None:
    report_first_rows()
    if subject == "bare":
        from bench.bare_app import BareApp

        BareApp().run()
    else:
        from tui.cli import main

        main(["--demo"])



if __name__ == "__main__":
    run_child(sys.argv[1])
