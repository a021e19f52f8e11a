"""Vertex ids: their widths, and the checks of id arrays (NumPy or CuPy alike)."""
from __future__ import annotations

import numbers

import numpy as np

INT32_MAX = int(np.iinfo(np.int32).max)
INT64_MAX = int(np.iinfo(np.int64).max)


def id_dtype(n: int):
    """int32 ids unless n vertices need int64."""
    return np.int32 if n <= INT32_MAX else np.int64


def offset_dtype(m: int):
    """int32 CSR offsets unless the 2m slots of m undirected edges need int64."""
    return np.int32 if 2 * m <= INT32_MAX else np.int64


def one_pair(u, v) -> tuple:
    """``(True, [u], [v])`` where ``u`` and ``v`` are single ids (Python or NumPy integers), else
    ``(False, u, v)``: the incremental structures take one edge or query as they take arrays.

    >>> one_pair(3, np.int64(4)), one_pair([3], [4])[0]
    ((True, [3], [4]), False)
    """
    def single(x):
        return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))
    return (True, [int(u)], [int(v)]) if single(u) and single(v) else (False, u, v)


def check_n(n) -> None:
    """``n`` is None or a non-negative integer."""
    if n is not None:
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        if n < 0:
            raise ValueError(f"n must be non-negative; got {n}")


def check_pair(src, dst) -> None:
    """``src`` and ``dst`` are 1-D integer arrays of one length."""
    for a, what in ((src, "src"), (dst, "dst")):
        if a.ndim != 1:
            raise ValueError(f"{what} must be a 1-D array of vertex ids; got shape {tuple(a.shape)}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"{what} has dtype {a.dtype}; vertex ids must be integers")
    if src.shape != dst.shape:
        raise ValueError(f"src and dst have different lengths ({src.shape[0]} and {dst.shape[0]})")


def id_range(src, dst) -> int:
    """The largest id of non-empty id arrays; the first negative one raises."""
    lo = min(int(src.min()), int(dst.min()))
    if lo < 0:
        where, arr = ("src", src) if int(src.min()) < 0 else ("dst", dst)
        i = int((arr < 0).argmax())
        raise ValueError(f"negative vertex id {int(arr[i])} ({where}[{i}]); ids must be >= 0")
    return max(int(src.max()), int(dst.max()))


def check_column(values, where: str):
    """A column's values checked as vertex ids: integers (>= 0, <= 2^63 - 1) or names."""
    kind = values.dtype.kind
    if kind in "OSU":
        return values
    if values.size == 0 and kind in "fb":
        return values.astype(np.int64)      # an empty table's columns: pandas makes them float
    if kind == "f":
        raise TypeError(f"{where} has float dtype {values.dtype}; vertex ids must be integers or names "
                        "(cast the column, e.g. .astype('int64'), if its values are whole numbers)")
    if kind not in "iu":
        raise TypeError(f"{where} has dtype {values.dtype}; vertex ids must be integers or names")
    if values.size:
        if kind == "u" and values.dtype.itemsize == 8 and int(values.max()) > INT64_MAX:
            i = int((values > INT64_MAX).argmax())
            raise ValueError(f"{where}, row {i}: vertex id {int(values[i])} is beyond 2^63 - 1")
        if kind == "i" and int(values.min()) < 0:
            i = int((values < 0).argmax())
            raise ValueError(f"{where}, row {i}: negative vertex id {int(values[i])}; ids must be >= 0")
    return values
