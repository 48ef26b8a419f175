"""The embedded service simulator (docs/simulator.md).

An independent implementation of SPEC.md served by Starlette on uvicorn on
127.0.0.1. It imports neither Textual nor the client (tui.api): it exists to
catch the client's mistakes (DESIGN rule 3).
"""

from .credentials import DEMO_CREDENTIALS, DemoCredential, demo_credential
from .faults import FaultSpec
from .server import SimulatorServer
from .settings import TIMING_PRESETS, SimulatorSettings, Timing

__all__ = [
    "DEMO_CREDENTIALS",
    "DemoCredential",
    "FaultSpec",
    "SimulatorServer",
    "SimulatorSettings",
    "TIMING_PRESETS",
    "Timing",
    "demo_credential",
]
