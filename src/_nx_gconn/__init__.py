"""NetworkX backend metadata for gconn: NetworkX calls :func:`get_info` on every ``import networkx``,
so this module lives outside the ``gconn`` package (which imports numpy) and imports nothing."""

_DOCS = ("Runs on gconn's connectivity kernels (CPU by default; set "
         "``nx.config.backends.gconn.backend = 'auto'`` to let gconn pick a GPU).")

_FUNCTIONS = (
    "connected_components", "number_connected_components", "is_connected", "node_connected_component",
    "weakly_connected_components", "number_weakly_connected_components", "is_weakly_connected",
    "strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected",
    "is_forest", "is_tree",
)


def get_info():
    """The ``networkx.backend_info`` dictionary for the ``gconn`` backend."""
    return {
        "backend_name": "gconn",
        "project": "gconn",
        "package": "gconn",
        "short_summary": "Graph connectivity on CPUs and NVIDIA GPUs.",
        "functions": {name: {"additional_docs": _DOCS} for name in _FUNCTIONS},
        # `backend` and `algorithm` are passed to gconn.connected_components.
        "default_config": {"backend": "cpu", "algorithm": "auto"},
    }
