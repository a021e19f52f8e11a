"""The disk cache of compiled GPU kernels (gconn.backends.gpu.kernel_cache): where it
lives, what names a kernel, and files written whole and read back or
refused.  Loading a cubin needs a GPU: tests/gpu/test_gpu_kernel_cache.py."""
from __future__ import annotations

import os
import stat
import sys

import pytest

from gconn.backends.gpu import kernel_cache


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "kernels"
    monkeypatch.setenv("GCONN_KERNEL_CACHE", str(d))
    return d


def test_directory_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GCONN_KERNEL_CACHE", str(tmp_path / "k"))
    assert kernel_cache.directory() == tmp_path / "k"
    for off in ("off", "0", "OFF", " false "):
        monkeypatch.setenv("GCONN_KERNEL_CACHE", off)
        assert kernel_cache.directory() is None
    monkeypatch.delenv("GCONN_KERNEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kernel_cache.directory() == tmp_path / "xdg" / "gconn" / "kernels"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert kernel_cache.directory() == tmp_path / "home" / ".cache" / "gconn" / "kernels"


def test_round_trip_and_misses(cache_dir):
    assert kernel_cache.load("k1") is None          # no directory yet
    assert kernel_cache.save("k1", "_Z6kernelPi", b"\x7fELF\x00\nbinary\n")
    assert kernel_cache.load("k1") == ("_Z6kernelPi", b"\x7fELF\x00\nbinary\n")
    assert kernel_cache.load("k2") is None
    assert [p.name for p in kernel_cache.files()] == ["k1.cubin"]
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]
    # a second save replaces the file whole
    assert kernel_cache.save("k1", "other", b"image 2")
    assert kernel_cache.load("k1") == ("other", b"image 2")


@pytest.mark.parametrize("content", [b"", b"not ours at all", kernel_cache.MAGIC,
                                     kernel_cache.MAGIC + b"entry-without-image",
                                     kernel_cache.MAGIC + b"\nimage without an entry",
                                     kernel_cache.MAGIC + b"entry\n", kernel_cache.MAGIC + b"\xff\xfe\nimage"])
def test_foreign_or_truncated_files_are_misses(cache_dir, content):
    cache_dir.mkdir()
    (cache_dir / "k.cubin").write_bytes(content)
    assert kernel_cache.load("k") is None


def test_off_reads_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("GCONN_KERNEL_CACHE", "off")
    assert not kernel_cache.save("k", "e", b"x")
    assert kernel_cache.load("k") is None
    assert kernel_cache.files() == [] and kernel_cache.clear() == 0


@pytest.mark.skipif(sys.platform == "win32" or (hasattr(os, "geteuid") and os.geteuid() == 0),
                    reason="permissions do not bind root (or Windows)")
def test_an_unwritable_directory_warns_once_and_runs_on(cache_dir, monkeypatch):
    cache_dir.mkdir()
    cache_dir.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setattr(kernel_cache, "_WARNED", [])
    try:
        with pytest.warns(RuntimeWarning, match="GCONN_KERNEL_CACHE"):
            assert not kernel_cache.save("k", "e", b"x")
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not kernel_cache.save("k2", "e", b"x")   # once per process
    finally:
        cache_dir.chmod(stat.S_IRWXU)


def test_a_file_in_the_way_warns(tmp_path, monkeypatch):
    # works as root too: a directory cannot be made where a file is
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("GCONN_KERNEL_CACHE", str(blocker / "kernels"))
    monkeypatch.setattr(kernel_cache, "_WARNED", [])
    with pytest.warns(RuntimeWarning, match="cannot write its GPU kernel cache"):
        assert not kernel_cache.save("k", "e", b"x")


def test_names_change_with_everything_a_kernel_is_built_from(monkeypatch):
    base = kernel_cache.name("coo_ops", (1, 2, 0, True), ("int32", "int32", "int32"), (9, 0))
    assert base == kernel_cache.name("coo_ops", (1, 2, 0, True), ("int32", "int32", "int32"), (9, 0))
    others = {
        kernel_cache.name("compress", (1, 2, 0, True), ("int32", "int32", "int32"), (9, 0)),
        kernel_cache.name("coo_ops", (1, 2, 1, True), ("int32", "int32", "int32"), (9, 0)),
        kernel_cache.name("coo_ops", (1, 2, 0, True), ("int64", "int64", "int64"), (9, 0)),
        kernel_cache.name("coo_ops", (1, 2, 0, True), ("int32", "int32", "int32"), (8, 0)),
    }
    monkeypatch.setenv("NUMBA_OPT", "1")
    others.add(kernel_cache.name("coo_ops", (1, 2, 0, True), ("int32", "int32", "int32"), (9, 0)))
    monkeypatch.delenv("NUMBA_OPT")
    monkeypatch.setattr(kernel_cache, "sources_digest", lambda: "an edited source tree")
    others.add(kernel_cache.name("coo_ops", (1, 2, 0, True), ("int32", "int32", "int32"), (9, 0)))
    assert base not in others and len(others) == 6


def test_the_sources_digest_reads_gconn(monkeypatch):
    kernel_cache.sources_digest.cache_clear()
    d = kernel_cache.sources_digest()
    assert len(d) == 64 and kernel_cache.sources_digest() == d


def test_clear(cache_dir):
    for k in ("a", "b", "c"):
        kernel_cache.save(k, "e", b"x")
    (cache_dir / "unrelated.txt").write_text("kept")
    assert kernel_cache.clear() == 3
    assert kernel_cache.files() == [] and (cache_dir / "unrelated.txt").exists()
