"""Builds the extension module clxcorr._core against libclxcorr.

The library is looked for in this order (the first that is set or found):

  CLXCORR_BUILD_DIR   a configured and built clxcorr tree (after `make`):
                      the header of its source tree, the library in src/.libs.
                      For development: the package then runs the build tree's
                      library and kernels.
  CLXCORR_PREFIX      the prefix clxcorr was installed into
                      (`make install prefix=...`): PREFIX/include, PREFIX/lib.
  pkg-config clxcorr  the installed library pkg-config finds (after
                      `make install`; PKG_CONFIG_PATH for another prefix).

The extension records the library's directory as its run path, so that
`import clxcorr` needs no LD_LIBRARY_PATH.
"""

import os
import re
import shlex
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["module.c", "context.c", "plan.c", "plan_options.c", "image_file.c", "pixels.c", "windows.c", "strain.c"]


def fail(message):
    sys.exit("clxcorr: " + message)


def from_build_tree(build_dir):
    """The header and library of a built tree; its source tree is in its Makefile."""
    build_dir = os.path.abspath(build_dir)
    source_dir = build_dir
    try:
        with open(os.path.join(build_dir, "Makefile"), encoding="utf-8") as makefile:
            found = re.search(r"^abs_top_srcdir = (.*)$", makefile.read(), re.M)
            if found:
                source_dir = found.group(1).strip()
    except OSError:
        fail(f"CLXCORR_BUILD_DIR={build_dir} has no Makefile: configure and build clxcorr there first")
    library_dir = os.path.join(build_dir, "src", ".libs")
    if not os.path.exists(os.path.join(library_dir, "libclxcorr.so")):
        fail(f"no {library_dir}/libclxcorr.so: run `make` in {build_dir} first")
    return [os.path.join(source_dir, "include")], [library_dir]


def from_prefix(prefix):
    for libdir in ("lib", "lib64"):
        if os.path.exists(os.path.join(prefix, libdir, "libclxcorr.so")):
            return [os.path.join(prefix, "include")], [os.path.join(prefix, libdir)]
    fail(f"CLXCORR_PREFIX={prefix} has no lib/libclxcorr.so: run `make install prefix={prefix}` first")


def from_pkg_config():
    pkg_config = os.environ.get("PKG_CONFIG", "pkg-config")
    try:
        cflags = subprocess.run([pkg_config, "--cflags-only-I", "clxcorr"], check=True, capture_output=True,
                                text=True).stdout
        libs = subprocess.run([pkg_config, "--libs-only-L", "clxcorr"], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail("libclxcorr not found: pkg-config clxcorr failed (%s). Install clxcorr first (`make install`), or "
             "set CLXCORR_PREFIX to its prefix or CLXCORR_BUILD_DIR to a built clxcorr tree."
             % (getattr(e, "stderr", None) or e).strip())
    include_dirs = [w[2:] for w in shlex.split(cflags) if w.startswith("-I")]
    library_dirs = [w[2:] for w in shlex.split(libs) if w.startswith("-L")]
    return include_dirs, library_dirs


def find_library():
    if os.environ.get("CLXCORR_BUILD_DIR"):
        return from_build_tree(os.environ["CLXCORR_BUILD_DIR"])
    if os.environ.get("CLXCORR_PREFIX"):
        return from_prefix(os.environ["CLXCORR_PREFIX"])
    return from_pkg_config()


include_dirs, library_dirs = find_library()
core = Extension(
    "clxcorr._core",
    sources=[os.path.join("ext", name) for name in SOURCES],
    # The library's header too: a struct that grows must rebuild the module.
    depends=[os.path.join("ext", "core.h")] + [os.path.join(d, "clxcorr.h") for d in include_dirs],
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    runtime_library_dirs=library_dirs,
    libraries=["clxcorr"],
    # Hidden: the module's helpers shared between its files (windows_read,
    # pixel_format, ...) stay out of its dynamic symbols, where an
    # interpreter that loads extensions RTLD_GLOBAL would let them stand in
    # for another library's (issue #35); PyMODINIT_FUNC keeps PyInit__core.
    extra_compile_args=["-Wall", "-Wextra", "-Wno-missing-field-initializers", "-Wno-cast-function-type",
                        "-fvisibility=hidden"],
)
setup(ext_modules=[core])
