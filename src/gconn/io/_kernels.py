"""Byte-level numba kernels for the text formats: parse and format integers.

The parsers stop at the first bad line and return its status, 1-based line number and byte span.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.io._codes import (BAD_EXTRA, BAD_FIELD, BAD_OP, EMPTY_FIELD, EXTRA_FIELDS, NEGATIVE,  # noqa: F401
                             ODD_PAIRS, OK, OUT_OF_RANGE, OVERFLOW, TOO_FEW, TOO_MANY, VALUE_INTEGER,
                             VALUE_REAL, VALUE_REAL_COMMA)

_NL = 10
_CR = 13
_SPACE = 32
_TAB = 9
_COMMA = 44
_SEMICOLON = 59
_HASH = 35
_PERCENT = 37
_MINUS = 45
_ZERO = 48
_INT64_MAX = np.iinfo(np.int64).max
_SAFE = _INT64_MAX // 10  # below it, value * 10 + digit cannot overflow


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == _SPACE or c == _TAB or c == _CR


@njit(cache=True, inline="always")
def _is_sep(c, commas):
    return c == _SPACE or c == _TAB or c == _CR or (commas and c == _COMMA)


@njit(cache=True, inline="always")
def line_end(buf, pos):
    """Index of the newline ending the line at ``pos``, or ``buf.size``."""
    size = buf.size
    while pos < size and buf[pos] != _NL:
        pos += 1
    return pos


@njit(cache=True)
def count_lines(buf):
    """Number of lines, counting a last line without a newline."""
    count = 0
    for i in range(buf.size):
        if buf[i] == _NL:
            count += 1
    if buf.size and buf[buf.size - 1] != _NL:
        count += 1
    return count


@njit(cache=True, inline="always")
def _parse_int(buf, i, end, commas):
    """(status, value, next index) of the token at ``i``: digits after an optional minus sign."""
    neg = buf[i] == _MINUS
    if neg:
        i += 1
    start = i
    value = 0
    status = OK
    while i < end:
        # digits first: they are most of the bytes
        d = np.int64(buf[i]) - _ZERO
        if 0 <= d <= 9:
            if status == OK:
                if value < _SAFE or value <= (_INT64_MAX - d) // 10:
                    value = value * 10 + d
                else:
                    status = OVERFLOW
        elif _is_sep(buf[i], commas):
            break
        else:
            status = BAD_FIELD
        i += 1
    if i == start:
        status = BAD_FIELD
    if status == OK and neg:
        status = NEGATIVE
        value = -value
    return status, value, i


@njit(cache=True, inline="always")
def _digits_value(buf, i, size):
    """(index after the run of digits at ``i``, its value); the caller checks for <= 18 digits."""
    value = 0
    while i < size:
        d = np.int64(buf[i]) - _ZERO
        if d < 0 or d > 9:
            break
        value = value * 10 + d
        i += 1
    return i, value


@njit(cache=True)
def parse_pairs(buf, pos, line, base, limit, nfields, expect, src, dst):
    """Read one (u, v) record per data line of ``buf[pos:]`` into src/dst: fields split on blanks and
    a comma, ``base`` subtracted, ``nfields`` required; ``limit >= 0`` bounds the ids, ``expect >= 0``
    the records.  Returns (records, status, line, line start, line end, offending value).
    """
    size = buf.size
    k = 0
    while pos < size:
        if nfields == 2 and k != expect:
            # the common 'u<sep>v\n' in one pass
            i, u = _digits_value(buf, pos, size)
            if i < size and (buf[i] == _SPACE or buf[i] == _TAB or buf[i] == _COMMA) and 0 < i - pos <= 18:
                j, v = _digits_value(buf, i + 1, size)
                if 0 < j - i - 1 <= 18:
                    if j < size and buf[j] == _CR:
                        j += 1
                    if (j == size or buf[j] == _NL) and u >= base and v >= base \
                            and (limit < 0 or (u - base < limit and v - base < limit)):
                        src[k] = u - base
                        dst[k] = v - base
                        k += 1
                        pos = j + 1
                        line += 1
                        continue
        end = line_end(buf, pos)
        i = pos
        while i < end and _is_blank(buf[i]):
            i += 1
        if i < end and buf[i] != _HASH and buf[i] != _PERCENT:
            if k == expect:
                return k, TOO_MANY, line, pos, end, 0
            for f in range(nfields):
                # one comma may end a field; '1,,2' is not '1 2'
                commas = 0
                while i < end and _is_sep(buf[i], True):
                    commas += buf[i] == _COMMA
                    i += 1
                if commas > (f > 0):
                    return k, BAD_FIELD, line, pos, end, 0
                if i == end:
                    return k, TOO_FEW, line, pos, end, 0
                if f < 2:
                    status, value, i = _parse_int(buf, i, end, True)
                    if status != OK:
                        return k, status, line, pos, end, value
                    if value < base or (limit >= 0 and value - base >= limit):
                        return k, OUT_OF_RANGE, line, pos, end, value
                    if f == 0:
                        src[k] = value - base
                    else:
                        dst[k] = value - base
                else:
                    while i < end and not _is_sep(buf[i], True):
                        i += 1
            k += 1
        pos = end + 1
        line += 1
    return k, OK, line, pos, pos, 0


@njit(cache=True)
def parse_edges(buf, pos, line, delim, nfields, ca, cb, numbers, limit, src, dst):
    """Read the ids in fields ``ca`` and ``cb`` of an edge list's data lines ``buf[pos:]`` into
    ``src``/``dst``.  ``delim`` 0 splits at runs of blanks, else at that byte; each line has ``nfields``
    fields; with ``numbers`` the others must be numbers, else they may be anything, empty too;
    ``limit >= 0`` bounds the ids.
    Returns (records, status, line, line start, line end, value, field).
    """
    size = buf.size
    k = 0
    fast = nfields == 2 and ca == 0 and cb == 1
    while pos < size:
        if fast:
            # the common 'u<delimiter>v\n' in one pass
            i, u = _digits_value(buf, pos, size)
            if 0 < i - pos <= 18 and i < size and (buf[i] == delim or (delim == 0 and (
                    buf[i] == _SPACE or buf[i] == _TAB))):
                j, v = _digits_value(buf, i + 1, size)
                if 0 < j - i - 1 <= 18:
                    if j < size and buf[j] == _CR:
                        j += 1
                    if (j == size or buf[j] == _NL) and (limit < 0 or (u < limit and v < limit)):
                        src[k] = u
                        dst[k] = v
                        k += 1
                        pos = j + 1
                        line += 1
                        continue
        end = line_end(buf, pos)
        i = pos
        while i < end and _is_blank(buf[i]):
            i += 1
        if i == end or buf[i] == _HASH or buf[i] == _PERCENT:
            pos = end + 1
            line += 1
            continue
        f = 0
        while True:
            j = i
            if delim == 0:
                while j < end and not _is_blank(buf[j]):
                    j += 1
                stop = j
            else:
                while j < end and buf[j] != delim:
                    j += 1
                stop = j
                while stop > i and _is_blank(buf[stop - 1]):
                    stop -= 1
            if stop == i and (numbers or f == ca or f == cb):
                # below a header, a column of other data may hold an empty field (Gephi's Label)
                return k, EMPTY_FIELD, line, pos, end, 0, f
            if f >= nfields:
                return k, EXTRA_FIELDS, line, pos, end, 0, f
            if f == ca or f == cb:
                status, value, e = _parse_int(buf, i, stop, False)
                if e != stop:
                    status = BAD_FIELD
                if status != OK:
                    return k, status, line, pos, end, value, f
                if limit >= 0 and value >= limit:
                    return k, OUT_OF_RANGE, line, pos, end, value, f
                if f == ca:
                    src[k] = value
                else:
                    dst[k] = value
            elif numbers and not _is_number(buf, i, stop, VALUE_REAL_COMMA if delim == _SEMICOLON else VALUE_REAL):
                return k, BAD_EXTRA, line, pos, end, 0, f
            f += 1
            if delim == 0:
                while j < end and _is_blank(buf[j]):
                    j += 1
                if j == end:
                    break
                i = j
            else:
                if j == end:
                    break
                i = j + 1
                while i < end and _is_blank(buf[i]):
                    i += 1
        if f < nfields:
            return k, TOO_FEW, line, pos, end, 0, f
        k += 1
        pos = end + 1
        line += 1
    return k, OK, line, pos, pos, 0, 0


#: parse_block's status when its scratch arrays are too small (it returns the size needed).
NEED_SPACE = -1


@njit(cache=True)
def _piece_starts(buf, pos, pieces):
    """``pieces`` + 1 offsets cutting ``buf[pos:]`` at line starts."""
    size = buf.size
    starts = np.empty(pieces + 1, np.int64)
    for c in range(pieces + 1):
        p = pos + (size - pos) * c // pieces
        if c > 0 and p < size and buf[p - 1] != _NL:
            p = min(line_end(buf, p) + 1, size)
        starts[c] = max(p, starts[c - 1]) if c > 0 else p
    return starts


@njit(parallel=True, cache=True, nogil=True)
def parse_block(buf, pos, line, delim, nfields, ca, cb, numbers, limit, pieces, src, dst):
    """:func:`parse_edges` over ``pieces`` pieces of ``buf[pos:]`` in parallel, the records compacted
    into ``src``/``dst`` in file order.  Returns what parse_edges returns (for the first piece that
    fails), or NEED_SPACE with the size needed.
    """
    starts = _piece_starts(buf, pos, pieces)
    # a record takes 4 bytes or more ('0 1\n'): room for bytes // 4 + 1, no counting pass
    room = np.zeros(pieces + 1, np.int64)
    for c in range(pieces):
        room[c + 1] = room[c] + (starts[c + 1] - starts[c]) // 4 + 1
    if room[pieces] > src.size:
        return room[pieces], NEED_SPACE, line, pos, pos, 0, 0
    result = np.zeros((pieces, 7), np.int64)
    for c in prange(pieces):
        out = parse_edges(buf[:starts[c + 1]], starts[c], 0, delim, nfields, ca, cb, numbers, limit,
                          src[room[c]:], dst[room[c]:])
        for t in range(7):
            result[c, t] = out[t]
    total = 0
    for c in range(pieces):
        if result[c, 1] != OK:
            return (total, result[c, 1], line + result[c, 2], result[c, 3], result[c, 4], result[c, 5],
                    result[c, 6])
        line += result[c, 2]
        if room[c] != total:
            for j in range(result[c, 0]):
                src[total + j] = src[room[c] + j]
                dst[total + j] = dst[room[c] + j]
        total += result[c, 0]
    return total, OK, line, buf.size, buf.size, 0, 0


@njit(cache=True)
def parse_metis(buf, pos, line, n, skip, edge_weights, src, dst):
    """Read METIS vertex lines from ``buf[pos:]``: vertex i's 1-based neighbours after ``skip`` fields,
    each with a weight when ``edge_weights``.  Returns (entries, vertex lines read, status, line, line
    start, line end, offending value).
    """
    size = buf.size
    cap = src.size
    k = 0
    v = 0
    while pos < size:
        end = line_end(buf, pos)
        i = pos
        while i < end and _is_blank(buf[i]):
            i += 1
        if i < end and buf[i] == _PERCENT:
            pos = end + 1
            line += 1
            continue
        if v == n:
            if i < end:
                return k, v, TOO_MANY, line, pos, end, 0
            pos = end + 1
            line += 1
            continue
        t = 0
        while True:
            while i < end and _is_blank(buf[i]):
                i += 1
            if i == end:
                break
            status, value, i = _parse_int(buf, i, end, False)
            if status != OK:
                return k, v, status, line, pos, end, value
            j = t - skip
            if j >= 0 and (not edge_weights or j % 2 == 0):
                if value < 1 or value > n:
                    return k, v, OUT_OF_RANGE, line, pos, end, value
                if k == cap:
                    return k, v, TOO_MANY, line, pos, end, 0
                src[k] = v
                dst[k] = value - 1
                k += 1
            t += 1
        if t < skip:
            return k, v, TOO_FEW, line, pos, end, 0
        if edge_weights and (t - skip) % 2 == 1:
            return k, v, ODD_PAIRS, line, pos, end, 0
        v += 1
        pos = end + 1
        line += 1
    return k, v, OK, line, pos, pos, 0


@njit(cache=True, inline="always")
def _arc_hash(u, v):
    """A 64-bit hash of the ordered pair (u, v) (splitmix64's finalizer)."""
    x = np.uint64(u) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(v)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(parallel=True, cache=True)
def arc_imbalance(src, dst):
    """0 where every arc (u, v) is listed as often as (v, u) (a symmetric adjacency, as METIS
    files hold); else, but for a chance of about 2^-64, not 0: a sum of hashes, one parallel pass."""
    total = np.uint64(0)
    for i in prange(src.size):
        total += _arc_hash(src[i], dst[i]) - _arc_hash(dst[i], src[i])
    return total


@njit(cache=True)
def arc_imbalance_serial(src, dst):
    """:func:`arc_imbalance` in one thread (the compiled module's)."""
    total = np.uint64(0)
    for i in range(src.size):
        total += _arc_hash(src[i], dst[i]) - _arc_hash(dst[i], src[i])
    return total


@njit(cache=True, inline="always")
def _put(out, p, x):
    """Write the decimal digits of ``x >= 0`` at ``out[p:]``; return the end."""
    q = p
    while True:
        out[q] = _ZERO + x % 10
        x //= 10
        q += 1
        if x == 0:
            break
    r = q - 1
    while p < r:
        out[p], out[r] = out[r], out[p]
        p += 1
        r -= 1
    return q


@njit(cache=True)
def format_pairs(a, b, add, sep, out):
    """Write 'a[i]+add<sep>b[i]+add\\n' lines into ``out``; return bytes used."""
    p = 0
    for i in range(a.size):
        p = _put(out, p, a[i] + add)
        out[p] = sep
        p = _put(out, p + 1, b[i] + add)
        out[p] = _NL
        p += 1
    return p


@njit(cache=True)
def format_adjacency(indptr, indices, v0, v1, out):
    """Write one line per vertex in [v0, v1): its 1-based neighbours."""
    p = 0
    for v in range(v0, v1):
        for j in range(indptr[v], indptr[v + 1]):
            if j > indptr[v]:
                out[p] = _SPACE
                p += 1
            p = _put(out, p, indices[j] + 1)
        out[p] = _NL
        p += 1
    return p


_PLUS = 43
_DOT = 46


@njit(cache=True)
def _is_word(buf, i, end, word):
    """Whether buf[i:end] is the lower-case letters ``word``, in any case."""
    if end - i != len(word):
        return False
    for j in range(end - i):
        if (buf[i + j] | 32) != word[j]:
            return False
    return True


_INF = np.frombuffer(b"inf", np.uint8)
_INFINITY = np.frombuffer(b"infinity", np.uint8)
_NAN = np.frombuffer(b"nan", np.uint8)


@njit(cache=True)
def _is_number(buf, i, end, kind):
    """Whether buf[i:end] is an integer ([+-]digits) or a real ([+-] digits [. digits] [e [+-] digits],
    inf, nan; VALUE_REAL_COMMA: the point may be a comma)."""
    if i < end and (buf[i] == _PLUS or buf[i] == _MINUS):
        i += 1
    if kind == VALUE_INTEGER:
        return i < end and _digits_value(buf, i, end)[0] == end
    if _is_word(buf, i, end, _INF) or _is_word(buf, i, end, _INFINITY) or _is_word(buf, i, end, _NAN):
        return True
    j = _digits_value(buf, i, end)[0]
    mantissa = j - i
    if j < end and (buf[j] == _DOT or (kind == VALUE_REAL_COMMA and buf[j] == _COMMA)):
        k = _digits_value(buf, j + 1, end)[0]
        mantissa += k - j - 1
        j = k
    if mantissa == 0:
        return False
    if j < end and (buf[j] == 101 or buf[j] == 69):  # e or E
        j += 1
        if j < end and (buf[j] == _PLUS or buf[j] == _MINUS):
            j += 1
        k = _digits_value(buf, j, end)[0]
        if k == j:
            return False
        j = k
    return j == end


@njit(cache=True, inline="always")
def _entry_status(buf, pos, end, nidx, nvals, kind):
    """OK, BAD_FIELD, TOO_FEW or TOO_MANY for the line buf[pos:end]."""
    i = pos
    while i < end and _is_blank(buf[i]):
        i += 1
    if i == end or buf[i] == _PERCENT:
        return OK
    for f in range(nidx + nvals):
        while i < end and _is_blank(buf[i]):
            i += 1
        if i == end:
            return TOO_FEW
        if f < nidx:
            # a negative index is well-formed; the range check reports it
            if buf[i] == _MINUS:
                i += 1
            j = _digits_value(buf, i, end)[0]
            if j == i or (j < end and not _is_blank(buf[j])):
                return BAD_FIELD
            i = j
        else:
            stop = i
            while stop < end and not _is_blank(buf[stop]):
                stop += 1
            if not _is_number(buf, i, stop, kind):
                return BAD_FIELD
            i = stop
    while i < end and _is_blank(buf[i]):
        i += 1
    return TOO_MANY if i < end else OK


@njit(cache=True)
def check_entries(buf, pos, line, nidx, nvals, kind):
    """(status, line, line start, line end) of the first Matrix Market entry line of ``buf[pos:]`` that
    is not ``nidx`` indices then ``nvals`` numbers of ``kind`` (OK where none is)."""
    size = buf.size
    while pos < size:
        end = line_end(buf, pos)
        status = _entry_status(buf, pos, end, nidx, nvals, kind)
        if status != OK:
            return status, line, pos, end
        pos = end + 1
        line += 1
    return OK, line, pos, pos


@njit(parallel=True, cache=True)
def entries_ok(buf, pos, nidx, nvals, kind, chunks):
    """Whether :func:`check_entries` finds no bad line, in ``chunks`` parallel pieces."""
    starts = _piece_starts(buf, pos, chunks)
    bad = 0
    for c in prange(chunks):
        p = starts[c]
        while p < starts[c + 1]:
            end = line_end(buf, p)
            if _entry_status(buf, p, end, nidx, nvals, kind) != OK:
                bad += 1
                break
            p = end + 1
    return bad == 0


@njit(cache=True)
def line_start(buf, line):
    """Byte offset where 1-based line ``line`` begins (``buf.size`` if none)."""
    pos = 0
    for _ in range(line - 1):
        pos = line_end(buf, pos) + 1
        if pos >= buf.size:
            return buf.size
    return pos


_INSERT = np.frombuffer(b"insert", np.uint8)
_QUERY = np.frombuffer(b"query", np.uint8)
_DELETE = np.frombuffer(b"delete", np.uint8)
_NOT_AN_OP = -1


@njit(cache=True)
def _op_code(buf, i, end):
    """0 insert, 1 query, 2 delete, or _NOT_AN_OP for the token buf[i:end]: + ? -, i q d or the
    words, in any case, as update logs write them."""
    if end - i == 1:
        c = buf[i] | 32                 # ASCII letters to lower case; + ? - keep their codes
        if c == 43 or c == 105:
            return 0
        if c == 63 or c == 113:
            return 1
        if c == 45 or c == 100:
            return 2
        return _NOT_AN_OP
    if _is_word(buf, i, end, _INSERT):
        return 0
    if _is_word(buf, i, end, _QUERY):
        return 1
    if _is_word(buf, i, end, _DELETE):
        return 2
    return _NOT_AN_OP


@njit(cache=True, inline="always")
def _next_field(buf, i, end):
    """(start of the next field after ``i``, status): blanks and at most one comma between fields."""
    commas = 0
    while i < end and _is_sep(buf[i], True):
        if buf[i] == _COMMA:
            commas += 1
        i += 1
    return i, EMPTY_FIELD if commas > 1 or (commas == 1 and i == end) else OK


@njit(cache=True)
def parse_updates(buf, kinds, src, dst, lines):
    """Update-log lines ``op u v`` into kinds (0 insert, 1 query, 2 delete), src and dst, each one's
    1-based line number into lines; blank lines and '#' or '%' comments skipped.  Returns (status,
    count, line, field, start of the line): OK, or the first bad line's status (BAD_OP: field 0)."""
    size = buf.size
    pos = 0
    line = 0
    count = 0
    while pos < size:
        line += 1
        end = line_end(buf, pos)
        i = pos
        while i < end and _is_blank(buf[i]):
            i += 1
        if i == end or buf[i] == _HASH or buf[i] == _PERCENT:
            pos = end + 1
            continue
        j = i
        while j < end and not _is_sep(buf[j], True):
            j += 1
        op = _op_code(buf, i, j)
        if op == _NOT_AN_OP:
            return BAD_OP, count, line, 0, pos
        u = np.int64(0)
        for f in range(1, 3):
            i, status = _next_field(buf, j, end)
            if status != OK:
                return status, count, line, f, pos
            if i == end:
                return TOO_FEW, count, line, f, pos
            status, value, j = _parse_int(buf, i, end, True)
            if status != OK:
                return status, count, line, f, pos
            if f == 1:
                u = value
            else:
                src[count] = u
                dst[count] = value
        i, status = _next_field(buf, j, end)
        if status != OK:
            return status, count, line, 3, pos
        if i < end:
            return EXTRA_FIELDS, count, line, 3, pos
        kinds[count] = op
        lines[count] = line
        count += 1
        pos = end + 1
    return OK, count, line, 0, pos
