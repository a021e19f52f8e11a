"""Builds gconn.backends._aot, the ahead-of-time compiled kernels of one-off runs
(src/gconn/backends/aot_build.py), with numba's pycc; everything else is in
pyproject.toml.  The extension is optional: where it cannot be built (no C
compiler), gconn installs without it and numba's JIT does all the work."""
import os
import sys

from setuptools import setup
from setuptools.command import build_ext

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))


def extensions():
    try:
        from gconn.backends.aot_build import make_cc
        ext = make_cc().distutils_extension()
    except Exception as e:  # noqa: BLE001 -- no C compiler, numba missing or broken: install without it
        print(f"gconn: not building the compiled kernels ({type(e).__name__}: {e}); gconn works without "
              "them, loading numba on every run", file=sys.stderr)
        return []
    ext.optional = True
    return [ext]


EXTENSIONS = extensions()


# Derived only now: pycc's distutils_extension() replaces setuptools'
# build_ext by its own, which compiles the kernels before linking.
class optional_build_ext(build_ext.build_ext):
    # setuptools tolerates a failing optional extension only for compiler
    # errors; pycc's LLVM step can fail in other ways.
    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            print(f"gconn: the compiled kernels were not built ({type(e).__name__}: {e}); "
                  "gconn works without them, loading numba on every run", file=sys.stderr)


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": optional_build_ext})
