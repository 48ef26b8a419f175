"""Textual's DataTable, drawn afresh once it has measured what it was given.

DataTable (Textual 8.2.8) measures new rows and changed cells when it is next idle, and keys the lines it has
drawn by an update count that measuring leaves alone. A line drawn between a refill and that measuring kept the
old column widths until something else changed: an order's items stayed "102 Acm" after the product's name came
(tests/project/test_textual_private.py holds that DataTable still does this; when it stops, this goes).
"""

from __future__ import annotations

from textual.widgets import DataTable

from widgets.textual_private import table_awaits_measuring


class FittedTable(DataTable):
    def on_idle(self) -> None:
        if table_awaits_measuring(self):
            # After DataTable's own idle handler, which measures (a subclass's handler is called first).
            self.call_next(self.notify_style_update)
