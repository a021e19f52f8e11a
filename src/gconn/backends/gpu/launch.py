"""Compiling and launching the GPU kernels.

Each kernel is made by a factory closing over the variant's codes as constants
(NVVM specializes each variant, as C++ templates do in GConn), registered with
its argument types by :func:`kernel`, compiled on first use and cached by
``(kind, key, dtypes)`` in the process and on disk
(:mod:`gconn.backends.gpu.kernel_cache`).  ``dtypes`` is ``(ids, offsets,
parents)``; parents are int64 for UnionJTB's records.  Launches go straight to
the driver (:class:`Direct`); a :class:`Launcher` keeps a kernel's parameters
packed between launches, for loops of many small launches.

>>> from gconn.backends.gpu import launch
>>> launch.dtypes_key("int32", "int64", "int32")
('int32', 'int64', 'int32')
"""
from __future__ import annotations

import os
import threading
import warnings
from contextlib import suppress
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Callable

import numpy as np
from numba import from_dtype, types

from gconn.backends.gpu import kernel_cache
from gconn.backends.gpu._compat import SIM, cuda, for_dispatcher, view, xp

# The simulator gets small blocks and tiny chunks (one Python thread per CUDA
# thread; tiny graphs then exercise every load-balancing path).
BLOCK = 32 if SIM else 256
WARP = 32
#: edges per warp work unit of the load-balanced finish
CHUNK = 4 if SIM else 256
#: vertices sampled for L_max (one block) and for HB's coverage estimate
SAMPLE = 64 if SIM else 1024
FULL_MASK = 0xFFFFFFFF
#: blocks per SM of a grid-stride ("persistent") kernel
WAVES = 2 if SIM else 16

I64 = types.int64


def _arr(dt):
    return types.Array(from_dtype(np.dtype(dt)), 1, "C")


class ArgTypes:
    """Types of a signature: arrays ``id``, ``ptr``, ``P``, ``i64``, ``lvl`` (int32), ``i8``, ``b``;
    the scalar ``I64``."""

    I64 = I64
    i64, lvl, i8, b = (_arr(d) for d in (np.int64, np.int32, np.int8, np.bool_))

    def __init__(self, dtypes: tuple):
        self.id, self.ptr, self.P = (_arr(d) for d in dtypes)


@dataclass(frozen=True)
class Spec:
    kind: str
    factory: Callable
    #: ArgTypes -> the argument types
    args: Callable
    #: "union" (finish, find, splice codes), "jtb" (UnionJTB or not) or a list of keys
    keys: object
    #: whether the kernel reads CSR offsets (else its dtypes ignore them)
    offsets: bool
    #: dtypes -> the most registers a thread may use, or None
    registers: Callable | None = None


REGISTRY: dict = {}


def kernel(kind: str, args: Callable, keys=((),), offsets: bool = True, registers: Callable | None = None):
    """Register a factory as kernel ``kind`` with its argument types."""
    def register(factory):
        REGISTRY[kind] = Spec(kind, factory, args, keys, offsets, registers)
        return factory
    return register


def signature(kind: str, dtypes: tuple):
    return types.void(*REGISTRY[kind].args(ArgTypes(dtypes)))


@lru_cache(256)
def dtypes_key(id_dtype, ptr_dtype, p_dtype) -> tuple:
    # cached: a dtype's name costs numpy microseconds
    return tuple(np.dtype(d).name for d in (id_dtype, ptr_dtype, p_dtype))


_CACHE: dict = {}


def device() -> int:
    """The current device's id (kernels and placeholders are kept per device: a call may use several)."""
    return 0 if SIM else xp.cuda.runtime.getDevice()


def get(kind: str, key: tuple, dtypes: tuple):
    """The kernel ``kind`` for ``key`` and ``dtypes`` on the current device: cached in the process,
    else loaded from another device's image or from disk, else compiled."""
    spec = REGISTRY[kind]
    if not spec.offsets:
        dtypes = (dtypes[0], dtypes[0], dtypes[2])
    ck = (kind, key, dtypes, device())
    kern = _CACHE.get(ck)
    if kern is None:
        kern = _CACHE[ck] = _build(kind, key, dtypes)
    return kern


def _build(kind: str, key: tuple, dtypes: tuple):
    spec = REGISTRY[kind]
    if SIM:
        return cuda.jit(spec.factory(*key))
    sig = signature(kind, dtypes)
    other = next((k for ck, k in _CACHE.items() if ck[:3] == (kind, key, dtypes)), None)
    if other is not None:
        # numba's dispatcher loads its module per device; a cubin loaded from disk is loaded again here
        return other if type(other) is not Direct else Direct.from_image(*other.image, sig.args)
    stored = None
    if DIRECT and _bindings():
        cc = cuda.get_current_device().compute_capability
        stored = kernel_cache.name(kind, key, dtypes, cc)
        found = kernel_cache.load(stored)
        if found is not None:
            with suppress(Exception):   # a file that does not load (another driver)
                d = Direct.from_image(*found, sig.args)
                kernel_cache.COUNTS["loaded"] += 1
                return d
    kern = cuda.jit(sig, max_registers=spec.registers and spec.registers(dtypes))(spec.factory(*key))
    kernel_cache.COUNTS["compiled"] += 1
    if stored is not None:
        _store(stored, kern)
    return kern


def _store(stored: str, kern) -> None:
    (compiled,) = kern.overloads.values()
    lib = compiled._codelibrary
    if lib._setup_functions or lib._teardown_functions or lib._linking_files:
        return                  # needs more than its image to run
    image = getattr(lib.get_cubin(), "code", None)
    if isinstance(image, (bytes, bytearray)) and lib._entry_name:
        kernel_cache.save(stored, lib._entry_name, image)


@cache
def persistent_grid() -> int:
    """The most blocks a grid-stride ("persistent") kernel is launched with."""
    return WAVES * (1 if SIM else cuda.get_current_device().MULTIPROCESSOR_COUNT)


#: ``GCONN_GPU_LAUNCH=numba`` launches through numba's dispatcher (for measuring)
DIRECT = os.environ.get("GCONN_GPU_LAUNCH", "direct").strip().lower() != "numba"


def _abi(a):
    abi = getattr(a, "abi", None)
    if abi is None:             # a numba DeviceNDArray (an empty array's view)
        ptr = a.device_ctypes_pointer.value or 0
        abi = (0, 0, a.size, a.dtype.itemsize, ptr, a.size, a.dtype.itemsize)
    return abi


def _param_buffer(n: int):
    """(n int64 parameters, their addresses, the addresses' address) for ``cuLaunchKernel``."""
    buf = np.zeros(n, np.int64)
    ptrs = np.arange(n, dtype=np.uint64) * np.uint64(8) + np.uint64(buf.ctypes.data)
    return buf, ptrs, ptrs.ctypes.data


class Direct:
    """A compiled kernel launched by one ``cuLaunchKernel`` from the views' precomputed fields."""

    __slots__ = ("handle", "types", "buf", "ptrs", "params", "lock", "function", "image")

    def __init__(self, function, argument_types, image=None):
        self.function = function        # keeps its module loaded
        #: (entry, cubin) where it came from an image (another device loads it again)
        self.image = image
        self.handle = function.handle
        self.types = tuple(t if isinstance(t, types.Array) else None for t in argument_types)
        # the driver copies the parameters during the call: one buffer serves every launch
        self.buf, self.ptrs, self.params = _param_buffer(self.field(len(self.types)))
        self.lock = threading.Lock()

    def __call__(self, grid: int, block: int, args: tuple) -> None:
        if len(args) != len(self.types):
            raise TypeError(f"the kernel takes {len(self.types)} arguments, not {len(args)}")
        vals = self.values(args)
        with self.lock:
            self.buf[:] = vals
            self.send(grid, block, self.params)

    def values(self, args: tuple) -> list:
        """The leading ``args`` as kernel parameters (7 per array), types checked."""
        vals = []
        for a, t in zip(args, self.types):
            if t is None:
                vals.append(a)
            else:
                if a._numba_type_ is not t and a._numba_type_ != t:
                    raise TypeError(f"kernel argument of type {a._numba_type_} where {t} is expected")
                vals.extend(_abi(a))
        return vals

    def field(self, index: int) -> int:
        """Where argument ``index`` starts in the parameter buffer (7 fields an array)."""
        return sum(1 if t is None else 7 for t in self.types[:index])

    def send(self, grid: int, block: int, params: int) -> None:
        """One ``cuLaunchKernel`` of the parameters at ``params`` (their buffer's lock held)."""
        stream = xp.cuda.get_current_stream().ptr
        err = _driver.cuLaunchKernel(self.handle, grid, 1, 1, block, 1, 1, 0, stream, params, 0)[0]
        if err == _INVALID_CONTEXT:
            cuda.current_context()      # a thread's first use of the device
            err = _driver.cuLaunchKernel(self.handle, grid, 1, 1, block, 1, 1, 0, stream, params, 0)[0]
        if err != _SUCCESS:
            raise RuntimeError(f"cuLaunchKernel failed: {err!r}")

    @classmethod
    def of(cls, kern) -> "Direct":
        (compiled,) = kern.overloads.values()
        return cls(compiled._codelibrary.get_cufunc(), compiled.argument_types)

    @classmethod
    def from_image(cls, entry: str, image: bytes, argument_types) -> "Direct":
        """The launcher of kernel ``entry`` of a cubin from the disk cache."""
        from numba.cuda.cudadrv.driver import ObjectCode
        module = cuda.current_context().create_module_image(ObjectCode.from_cubin(image))
        return cls(module.get_function(entry), argument_types, (entry, image))


_driver = _SUCCESS = _INVALID_CONTEXT = None


def _bindings() -> bool:
    global _driver, _SUCCESS, _INVALID_CONTEXT
    if _driver is None:
        try:
            from cuda.bindings import driver
        except Exception:
            return False
        _SUCCESS, _INVALID_CONTEXT = driver.CUresult.CUDA_SUCCESS, driver.CUresult.CUDA_ERROR_INVALID_CONTEXT
        _driver = driver
    return True


def direct(kern):
    """The :class:`Direct` launcher of ``kern`` on the current device, or False (then numba's dispatcher launches)."""
    return kern if type(kern) is Direct else _direct_of(kern, device())


@cache
def _direct_of(kern, dev: int):
    try:
        return Direct.of(kern) if _bindings() else False
    except Exception:
        return False


def launch(kern, nthreads: int, *args, persistent: bool = False, block: int = BLOCK) -> None:
    """Launch ``kern`` for ``nthreads`` (at most :func:`persistent_grid` blocks when ``persistent``)."""
    if nthreads <= 0:
        return
    grid = (nthreads + block - 1) // block
    if persistent:
        grid = min(grid, persistent_grid())
    if SIM:
        kern[grid, block](*args)
        return
    if DIRECT or type(kern) is Direct:
        d = direct(kern)
        if d:
            d(grid, block, args)
            return
    _configured(kern, grid, block)(*for_dispatcher(args))


@lru_cache(4096)
def _configured(kern, grid: int, block: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # low occupancy: noise for the one-block kernels
        return kern[grid, block]


class Bound:
    """A launch with fixed grid and leading arguments, called with fresh trailing CuPy arrays."""

    __slots__ = ("kern", "nthreads", "args", "block", "direct", "grid", "buf", "ptrs", "params", "tail", "lock")

    def __init__(self, kern, nthreads: int, args: tuple, block: int):
        self.kern, self.nthreads, self.args, self.block = kern, nthreads, args, block
        self.direct = d = (DIRECT or type(kern) is Direct) and not SIM and direct(kern)
        if not d:
            return
        self.grid = (nthreads + block - 1) // block
        head = d.values(args)
        if None in d.types[len(args):]:
            raise TypeError("only arrays may follow a bound launch's fixed arguments")
        #: (index of the first of 7 ABI fields, dtype) of each trailing array
        self.tail = [(d.field(i), np.dtype(str(d.types[i].dtype))) for i in range(len(args), len(d.types))]
        self.buf, self.ptrs, self.params = _param_buffer(d.field(len(d.types)))
        self.buf[:len(head)] = head
        self.lock = threading.Lock()

    def __call__(self, *tail) -> None:
        d = self.direct
        if not d:
            launch(self.kern, self.nthreads, *self.args, *(view(a) for a in tail), block=self.block)
            return
        if self.nthreads <= 0:
            return
        if len(tail) != len(self.tail):
            raise TypeError(f"the bound launch takes {len(self.tail)} arrays, not {len(tail)}")
        buf = self.buf
        with self.lock:
            for a, (at, dt) in zip(tail, self.tail):
                if a.dtype != dt or a.ndim != 1 or not a.flags.c_contiguous:
                    raise TypeError(f"a bound launch takes contiguous 1-D {dt} arrays, not {a.dtype}")
                size, item = a.size, a.itemsize
                buf[at + 2] = size
                buf[at + 3] = item
                buf[at + 4] = a.data.ptr
                buf[at + 5] = size
                buf[at + 6] = item
            d.send(self.grid, self.block, self.params)


class Launcher:
    """``kern``'s launches (grid-stride, at most :func:`persistent_grid` blocks) with its parameters
    kept between them: an argument that is the object it was at the last launch, or an equal
    scalar, is not packed again (packing every argument was ~50 of the ~70 us a launch took on
    the host in a dynamic batch).  CuPy arrays pass as they are; in the simulator every launch
    goes through :func:`launch`."""

    __slots__ = ("kern", "direct", "buf", "ptrs", "params", "at", "dt", "last", "lock")

    def __init__(self, kern):
        self.kern = kern
        self.direct = d = (DIRECT or type(kern) is Direct) and not SIM and direct(kern)
        if d:
            self.buf, self.ptrs, self.params = _param_buffer(d.field(len(d.types)))
            self.at = [d.field(i) for i in range(len(d.types))]
            self.dt = [None if t is None else np.dtype(str(t.dtype)) for t in d.types]
            self.last = [_UNSET] * len(d.types)
            self.lock = threading.Lock()

    def __call__(self, nthreads: int, *args) -> None:
        d = self.direct
        if not d:
            launch(self.kern, nthreads, *(view(a) if hasattr(a, "dtype") and a.ndim else a for a in args),
                   persistent=True)
            return
        if nthreads <= 0:
            return
        if len(args) != len(self.at):
            raise TypeError(f"the kernel takes {len(self.at)} arguments, not {len(args)}")
        buf, last = self.buf, self.last
        with self.lock:
            for i, a in enumerate(args):
                if a is last[i]:
                    continue
                t, at = d.types[i], self.at[i]
                if t is None:
                    buf[at] = a
                elif hasattr(a, "data") and hasattr(a.data, "ptr"):        # CuPy
                    if a.dtype != self.dt[i] or a.ndim != 1 or not a.flags.c_contiguous:
                        raise TypeError(f"kernel argument {i}: a contiguous 1-D {self.dt[i]} array, not {a.dtype}")
                    size, item = a.size, a.itemsize
                    buf[at: at + 7] = (0, 0, size, item, a.data.ptr, size, item)
                else:
                    if a._numba_type_ is not t and a._numba_type_ != t:
                        raise TypeError(f"kernel argument of type {a._numba_type_} where {t} is expected")
                    buf[at: at + 7] = _abi(a)
                last[i] = a
            grid = min((nthreads + BLOCK - 1) // BLOCK, persistent_grid())
            d.send(grid, BLOCK, self.params)


_UNSET = object()


def bind(kern, nthreads: int, *args, block: int = BLOCK) -> Bound:
    """``kern``'s launch for ``nthreads`` with ``args`` first; call it with the remaining arrays."""
    return Bound(kern, nthreads, args, block)


def dummy(dtype):
    """A length-1 placeholder (on the current device) for an array argument a launch does not use."""
    return _dummy(dtype, device())


@cache
def _dummy(dtype, dev: int):
    return view(xp.zeros(1, dtype))
