"""The two backends and the kernel bodies they share.

* core/: the algorithm bodies, written once for both targets
* cpu/: numba on the host;  gpu/: numba-cuda kernels over CuPy arrays
* aot: the ahead-of-time compiled module of one-off runs"""
