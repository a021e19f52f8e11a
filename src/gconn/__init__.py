"""gconn: graph connectivity on GPUs and CPUs -- the GConn design space.

>>> import gconn
>>> gconn.connected_components(([0, 1], [1, 2]), backend="cpu")[0]
1
"""
import importlib
import os

# numba's parallel loops run on GNU OpenMP, whose threads spin GOMP_SPINCOUNT times after a loop
# before they sleep (300,000 by default).  On the H200 machine a loop that came after idling then
# waited milliseconds for its threads: a GPU dynamic batch of 10,000 updates from host arrays took
# 1.1-1.2 ms, 0.8 with the shorter spin (BENCHMARKS.md, "OpenMP's spin").  Read when numba starts
# its threads; a user's wait policy or spin count wins.
OMP_SPIN = "100000"
if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & os.environ.keys():
    os.environ["GOMP_SPINCOUNT"] = OMP_SPIN

from gconn import graph as _graph
from gconn.api import DynamicConnectivity, IncrementalConnectivity, connected_components, spanning_forest
from gconn.design import Variant, variants
from gconn.errors import ConvergenceError, GPUUnavailableError, InputNote, VertexRangeError
from gconn.graph import Graph
from gconn.inputs import as_graph

# The one need of a layer for one above it, wired here at the top: a device
# graph's forms are built by the GPU backend, loaded when one first asks.
_graph.DEVICE_FORMS = lambda: importlib.import_module("gconn.backends.gpu.graph")

__version__ = "0.1.0"

__all__ = ["Graph", "as_graph", "connected_components", "spanning_forest", "IncrementalConnectivity",
           "DynamicConnectivity",
           "Variant", "variants", "load", "save", "read_updates", "generators", "GPUUnavailableError", "ConvergenceError",
           "VertexRangeError", "InputNote", "__version__"]


def __getattr__(name):
    # io, generators and csgraph import lazily: `import gconn` stays fast.
    if name in ("load", "save"):
        return getattr(importlib.import_module(".io", __name__), name)
    if name == "read_updates":
        return importlib.import_module("gconn.io.updates").read_updates
    where = {"io": "gconn.io", "generators": "gconn.graph.generators", "csgraph": "gconn.integrations.csgraph"}
    if name in where:
        return importlib.import_module(where[name])
    raise AttributeError(f"module 'gconn' has no attribute {name!r}")
