"""gconn behind other libraries: the SciPy csgraph drop-in, a NetworkX backend, Dask."""
