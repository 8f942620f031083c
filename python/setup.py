"""Builds the extension module clxcorr._core against libclxcorr.

The library is taken from the first of these that is set or found:

  CLXCORR_BUILD_DIR   a configured and built clxcorr tree (after `make`):
                      the header of its source tree, the library in src/.libs.
                      For development: the package then runs the build tree's
                      library and kernels, in place.
  CLXCORR_PREFIX      the prefix clxcorr was installed into
                      (`make install prefix=...`): PREFIX/include, PREFIX/lib.
  the source tree     the clxcorr clone this python/ directory sits in
                      (CLXCORR_SOURCE_DIR names another): `pip install
                      ./python` from a clone, with no `make install`. Its
                      library is built if need be (see build_library), and
                      copied into the package with the kernels, so that the
                      installed package depends on the clone no longer.
  pkg-config clxcorr  outside a source tree (an sdist, or a copy of python/):
                      the installed library pkg-config finds (after `make
                      install`; PKG_CONFIG_PATH for another prefix).

The source tree comes before pkg-config: the extension's C sources and the
library then come from the same commit, where a libclxcorr installed long
ago (/usr/local) may be older than the package being built.

The extension records the library's directory (for the source tree: the
package's own lib/, as $ORIGIN/lib) as its run path, so that `import
clxcorr` needs no LD_LIBRARY_PATH.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["module.c", "context.c", "plan.c", "plan_options.c", "image_file.c", "pixels.c", "windows.c", "strain.c", "gnd.c"]
# Where the library is built when the source tree is not configured in place
# (see build_library).
OWN_BUILD_DIR = os.path.join(HERE, "build", "clxcorr-lib")


def fail(message):
    sys.exit("clxcorr: " + message)


def say(message):
    print("clxcorr: " + message, flush=True)


def makefile_source_dir(build_dir):
    """The source tree a configured build tree was configured from."""
    with open(os.path.join(build_dir, "Makefile"), encoding="utf-8") as makefile:
        found = re.search(r"^abs_top_srcdir = (.*)$", makefile.read(), re.M)
    return os.path.normpath(found.group(1).strip()) if found else build_dir


def from_build_tree(build_dir):
    """The header and library of a built tree; its source tree is in its Makefile."""
    build_dir = os.path.abspath(build_dir)
    try:
        source_dir = makefile_source_dir(build_dir)
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
        fail("libclxcorr not found: %s is not inside a clxcorr source tree (pip older than 21.3 builds a copy "
             "of it elsewhere: upgrade pip, or set CLXCORR_SOURCE_DIR to the clone), and pkg-config clxcorr "
             "failed (%s). Set CLXCORR_SOURCE_DIR to a clxcorr clone, CLXCORR_PREFIX to an installed clxcorr's "
             "prefix or CLXCORR_BUILD_DIR to a built clxcorr tree."
             % (HERE, (getattr(e, "stderr", None) or str(e)).strip()))
    include_dirs = [w[2:] for w in shlex.split(cflags) if w.startswith("-I")]
    library_dirs = [w[2:] for w in shlex.split(libs) if w.startswith("-L")]
    return include_dirs, library_dirs


def is_source_tree(path):
    return os.path.isfile(os.path.join(path, "include", "clxcorr.h")) \
        and os.path.isfile(os.path.join(path, "configure.ac")) and os.path.isdir(os.path.join(path, "cl"))


def source_tree():
    """The clxcorr source tree to build from: CLXCORR_SOURCE_DIR, else python/.. .

    pip >= 21.3 builds a local directory in place (with build isolation too:
    only the build's packages are elsewhere), so python/.. is the clone;
    older pip copies python/ into a temporary directory first, where it is
    not: then None (pkg-config, or the error saying so)."""
    if os.environ.get("CLXCORR_SOURCE_DIR"):
        path = os.path.abspath(os.environ["CLXCORR_SOURCE_DIR"])
        if not is_source_tree(path):
            fail(f"CLXCORR_SOURCE_DIR={path} is not a clxcorr source tree (no include/clxcorr.h, configure.ac, cl/)")
        return path
    parent = os.path.dirname(HERE)
    return parent if is_source_tree(parent) else None


def run(command, cwd):
    say("running " + " ".join(shlex.quote(c) for c in command) + " in " + cwd)
    try:
        subprocess.run(command, cwd=cwd, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"building libclxcorr failed: {' '.join(command)} in {cwd}: {e}. The clxcorr README's quickstart "
             "lists the packages configure needs.")


def build_library(source_dir):
    """Builds the library of the source tree if need be; returns its build tree.

    Where: the source tree itself when it is configured in place (the
    quickstart's `./configure && make`: its library is used, rebuilt only if
    a source changed); else python/build/clxcorr-lib, configured out of tree
    with --disable-static, so that the clone stays unconfigured (a later
    `./configure` with other options is not disturbed, and `rm -rf
    python/build` undoes it all) and no static library doubles the compile.
    Only the library is built (`make src/libclxcorr.la`: about 2 minutes on
    2 cores, no command, no tests). `make` runs every time: it does nothing
    when the library is up to date, and a package rebuilt after `git pull`
    never carries an older library."""
    if os.path.exists(os.path.join(source_dir, "Makefile")):
        build_dir = source_dir
    else:
        build_dir = OWN_BUILD_DIR if source_dir == os.path.dirname(HERE) \
            else os.path.join(source_dir, "python", "build", "clxcorr-lib")
        if not os.path.exists(os.path.join(build_dir, "Makefile")):
            if not os.path.exists(os.path.join(source_dir, "configure")):
                run(["autoreconf", "-fi"], source_dir)
            os.makedirs(build_dir, exist_ok=True)
            run([os.path.join(source_dir, "configure"), "--disable-static"], build_dir)
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # An outer make's jobserver (pip run from a Makefile) is not this make's.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    say(f"building libclxcorr in {build_dir} (make src/libclxcorr.la; a few minutes the first time)")
    command = [os.environ.get("MAKE", "make"), f"-j{jobs}", "src/libclxcorr.la"]
    try:
        subprocess.run(command, cwd=build_dir, env=env, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"building libclxcorr failed: {' '.join(command)} in {build_dir}: {e}")
    return build_dir


def library_file(build_dir):
    """The built shared library's file and the name it is loaded by (its soname)."""
    with open(os.path.join(build_dir, "src", "libclxcorr.la"), encoding="utf-8") as la:
        found = re.search(r"^dlname='(.+)'$", la.read(), re.M)
    if not found:
        fail(f"{build_dir}/src/libclxcorr.la names no shared library (configured with --disable-shared?)")
    return os.path.join(build_dir, "src", ".libs", found.group(1)), found.group(1)


class BuildExt(build_ext):
    """Finds (or builds) the library when the extension is built, not when
    setup.py is merely read (pip reads it for its metadata first); from a
    source tree, puts the library and the kernels into the package:

      clxcorr/lib/libclxcorr.so.N       the extension's run path is $ORIGIN/lib
      clxcorr/share/clxcorr/*.cl, *.h   the library looks for its kernels in
                                        ../share/clxcorr beside itself
                                        (src/runtime/kernel_source.c)
    """

    def run(self):
        self.bundle = None
        if os.environ.get("CLXCORR_BUILD_DIR"):
            include_dirs, library_dirs = from_build_tree(os.environ["CLXCORR_BUILD_DIR"])
            runtime_dirs = library_dirs
        elif os.environ.get("CLXCORR_PREFIX"):
            include_dirs, library_dirs = from_prefix(os.environ["CLXCORR_PREFIX"])
            runtime_dirs = library_dirs
        elif source_tree():
            source_dir = source_tree()
            build_dir = build_library(source_dir)
            self.bundle = (library_file(build_dir), os.path.join(source_dir, "cl"))
            say(f"the package carries {self.bundle[0][0]} and the kernels of {self.bundle[1]}")
            include_dirs, library_dirs = [os.path.join(source_dir, "include")], [os.path.dirname(self.bundle[0][0])]
            runtime_dirs = ["$ORIGIN/lib"]
        else:
            include_dirs, library_dirs = from_pkg_config()
            runtime_dirs = library_dirs
        for ext in self.extensions:
            ext.include_dirs += include_dirs
            ext.library_dirs += library_dirs
            ext.runtime_library_dirs += runtime_dirs
            # The library's header too: a struct that grows must rebuild the module.
            ext.depends += [os.path.join(d, "clxcorr.h") for d in include_dirs]
        super().run()
        self.place_bundle()

    def place_bundle(self):
        """The library and kernels beside the module (build/lib..., or the
        source's package directory for --inplace); removed when the library
        is not the source tree's, so that no stale copy is installed."""
        package_dir = os.path.dirname(self.get_ext_fullpath("clxcorr._core"))
        lib_dir, share_dir = os.path.join(package_dir, "lib"), os.path.join(package_dir, "share")
        for stale in (lib_dir, share_dir):
            shutil.rmtree(stale, ignore_errors=True)
        if not self.bundle:
            return
        (library, soname), kernels = self.bundle
        os.makedirs(lib_dir)
        shutil.copy2(library, os.path.join(lib_dir, soname))
        kernel_dir = os.path.join(share_dir, "clxcorr")
        os.makedirs(kernel_dir)
        for name in sorted(glob.glob(os.path.join(kernels, "*.cl")) + glob.glob(os.path.join(kernels, "*.h"))):
            shutil.copy2(name, kernel_dir)


def need_bdist_wheel():
    """pip builds through bdist_wheel, which setuptools before 70.1 takes from
    the wheel package: pyproject.toml asks for it, but with
    --no-build-isolation it is the environment's, and without it setuptools
    says only "invalid command 'bdist_wheel'" (issue #35)."""
    if not {"bdist_wheel", "dist_info", "editable_wheel"} & set(sys.argv[1:]):
        return
    try:
        from setuptools.command import bdist_wheel  # noqa: F401 (setuptools >= 70.1)
    except ImportError:
        try:
            from wheel import bdist_wheel  # noqa: F401,F811
        except ImportError:
            fail(f"building the wheel needs the wheel package, which {sys.executable} lacks (setuptools "
                 "before 70.1 has no bdist_wheel of its own): without --no-build-isolation pip fetches it; "
                 "else `pip install wheel` (Debian: python3-wheel) first")


need_bdist_wheel()
core = Extension(
    "clxcorr._core",
    sources=[os.path.join("ext", name) for name in SOURCES],
    depends=[os.path.join("ext", "core.h")],
    libraries=["clxcorr"],
    # Hidden: the module's helpers shared between its files (windows_read,
    # pixel_format, ...) stay out of its dynamic symbols, where an
    # interpreter that loads extensions RTLD_GLOBAL would let them stand in
    # for another library's (issue #35); PyMODINIT_FUNC keeps PyInit__core.
    extra_compile_args=["-Wall", "-Wextra", "-Wno-missing-field-initializers", "-Wno-cast-function-type",
                        "-fvisibility=hidden"],
)
setup(ext_modules=[core], cmdclass={"build_ext": BuildExt})
