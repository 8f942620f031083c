"""Shared fixtures: a context on the default device, small synthetic images
with known shifts, and the command and sample generator when the suite runs
inside the clxcorr tree (`make check` sets CLXCORR and CLXCORR_SAMPLES).

Images are small (96 x 80, windows of 24 x 24) so that the suite runs in
seconds on PoCL; kernels compile once and stay in the binary cache.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

import clxcorr

HEIGHT, WIDTH = 80, 96
# Image k is the reference moved by SHIFTS[k] = (dx, dy) px.
SHIFTS = np.array([(0.0, 0.0), (0.35, -0.6), (-1.25, 0.4), (2.1, 1.7), (-0.8, -2.3)])


def speckle(height=HEIGHT, width=WIDTH, seed=3):
    """A smooth random texture (periodic, band-limited), 0 to 1."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((height, width))
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.fftfreq(width)[None, :]
    smooth = np.fft.ifft2(np.fft.fft2(noise) * np.exp(-(fx ** 2 + fy ** 2) / (2 * 0.08 ** 2))).real
    return np.ascontiguousarray((smooth - smooth.min()) / (smooth.max() - smooth.min()))


def moved(image, dx, dy):
    """The image moved by (dx, dy) px (a feature at x ends up at x + dx), exactly,
    by the Fourier shift theorem on the periodic texture."""
    fy = np.fft.fftfreq(image.shape[0])[:, None]
    fx = np.fft.fftfreq(image.shape[1])[None, :]
    return np.ascontiguousarray(np.fft.ifft2(np.fft.fft2(image) * np.exp(-2j * np.pi * (fx * dx + fy * dy))).real)


@pytest.fixture(scope="session")
def ctx():
    try:
        context = clxcorr.Context()
    except clxcorr.NoDeviceError as e:
        pytest.skip(f"no OpenCL device: {e}")
    yield context
    context.close()


@pytest.fixture(scope="session")
def texture():
    """(reference, stack, shifts): float64 images of whole numbers of counts
    (100 to 3900, room for the moved texture's overshoot), which every
    dtype but uint8 holds exactly."""
    base = speckle()
    reference = np.round(100 + 3800 * base)
    stack = np.stack([np.clip(np.round(100 + 3800 * moved(base, dx, dy)), 0, 4000) for dx, dy in SHIFTS])
    return reference, stack, SHIFTS


@pytest.fixture(scope="session")
def windows():
    return clxcorr.grid((HEIGHT, WIDTH), count=(3, 2), size=(24, 24), margin=8)


TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def tool(variable, name, in_tree):
    """A program of the clxcorr tree: from the environment (`make check`),
    else the built tree these tests are in, else on PATH."""
    built = os.path.join(TREE, in_tree)
    path = os.environ.get(variable) or (built if os.access(built, os.X_OK) else None) or shutil.which(name)
    if not path:
        pytest.skip(f"{name} not found (build the clxcorr tree, or set {variable})")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def cli():
    return tool("CLXCORR", "clxcorr", "src/clxcorr")


@pytest.fixture(scope="session")
def sample_set(tmp_path_factory):
    """The sample set (900 x 900 16-bit Kikuchi-like patterns, 50 windows of
    100 x 100), three images of it: samples/clxcorr-samples."""
    samples = tool("CLXCORR_SAMPLES", "clxcorr-samples", "samples/clxcorr-samples")
    out = tmp_path_factory.mktemp("samples")
    subprocess.run([samples, "--out", str(out), "--count", "3"], check=True)
    return out


@pytest.fixture(scope="session")
def small_set(tmp_path_factory):
    """A small set of the same kind (160 x 128, 6 windows of 32 x 32)."""
    samples = tool("CLXCORR_SAMPLES", "clxcorr-samples", "samples/clxcorr-samples")
    out = tmp_path_factory.mktemp("small")
    subprocess.run([samples, "--out", str(out), "--size", "160x128", "--count", "4", "--grid", "3x2",
                    "--window", "32x32", "--margin", "8", "--max-shift", "3"], check=True)
    return out
