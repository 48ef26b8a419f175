"""The embedded service simulator (docs/simulator.md).

An independent implementation of SPEC.md served by Starlette on uvicorn on
127.0.0.1. It imports neither Textual nor the client (tui.api): it exists to
catch the client's mistakes (DESIGN rule 3).

Names are exported lazily: the demo reads its credentials on the main thread
and imports Starlette and uvicorn in the simulator's own thread.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DEMO_CREDENTIALS": "credentials",
    "DemoCredential": "credentials",
    "demo_credential": "credentials",
    "FaultSpec": "faults",
    "SimulatorServer": "server",
    "SimulatorSettings": "settings",
    "TIMING_PRESETS": "settings",
    "Timing": "settings",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tui.simulator' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tui.simulator.{_EXPORTS[name]}"), name)
