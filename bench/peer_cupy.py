#!/usr/bin/env python3
"""bench/peer_cupy.py - the peer behind clxcorr's GPU speed figures: the seed
method of doc/conventions.md as a careful CuPy + cuFFT user writes it.

Per batch of B images, all of them in one go:
  upload     the batch, from pinned host memory into a device buffer;
  prepare    every window gathered, made zero-mean and written into a
             2W x 2H buffer whose padding stays zero;
  correlate  one batched rfft2, a multiply by the conjugate reference
             spectrum (computed once per run), one batched irfft2: the
             linear correlation C(u) = sum_p r(p) d(p + u);
  peaks      the argmax of each correlation (the first of equal maxima in
             row-major order) and its F x F neighbourhood, wrapping around
             the 2W x 2H layout, gathered on the device;
  download   argmax indices and neighbourhoods into pinned host memory;
  fit        the least-squares quadratic on the host (bench/peer_fit.py).
dx, dy is the position in the image minus the position in the reference.

  peer_cupy.py --ref REF.tif --regions REGIONS.txt [--batch B] [--repeat N]
               [--csv OUT] [--stages] [--xp cupy|numpy] [--workers W] IMAGE...

REGIONS.txt: "x y w h" per line (top-left corner, size; '#' comments), all
windows of one size. The images are decoded once; B of them (cycling
through those given) are copied into pinned memory and run again and again
until N patterns are done, after one untimed batch. The figure includes
upload, download and the host fit, and excludes the disk. Output, one line
that scripts and results files parse:

  peer_cupy batch=B regions=S window=WxH image=WxH: R patterns/s (T ms/pattern)

--stages then times the same loop again with a timestamp between stages
(CUDA events on the device) and prints ms per pattern for each stage.
--csv writes image,region,dx,dy,flags for every image and window (flags 1:
the fit had no maximum within (F-1)/2 of the integer peak; offset integer).

--xp numpy runs the very same code with numpy and scipy.fft (float32 as on
the GPU, --workers threads), so that the pipeline can be checked against
clxcorr without a GPU; its rate line says "xp=numpy" and is no GPU figure.
"""
import argparse
import os
import sys
import time

import numpy as np

from peer_fit import fit_operator, peak_offsets


class NumpyDevice:
    """Host arrays and scipy.fft behind the interface CupyDevice offers."""
    name = "numpy"

    def __init__(self, workers):
        import scipy.fft
        self.xp = np
        self.fft = scipy.fft
        self.fft_options = {"workers": workers}

    def host_empty(self, shape, dtype):
        return np.empty(shape, dtype)

    def upload(self, device_array, host_array):
        np.copyto(device_array, host_array)

    def download(self, host_array, device_array):
        np.copyto(host_array, device_array)

    def synchronize(self):
        pass

    def mark(self):
        return time.perf_counter()

    def elapsed_ms(self, start, end):
        return 1e3 * (end - start)


class CupyDevice:
    """The current CUDA device, its default stream, cuFFT through
    cupyx.scipy.fft (CuPy keeps the plans in its plan cache)."""
    name = "cupy"

    def __init__(self, workers):
        import cupy
        import cupyx.scipy.fft
        self.xp = cupy
        self.fft = cupyx.scipy.fft
        self.fft_options = {}

    def host_empty(self, shape, dtype):
        count = int(np.prod(shape))
        memory = self.xp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
        return np.frombuffer(memory, dtype, count).reshape(shape)

    def upload(self, device_array, host_array):
        device_array.set(host_array)

    def download(self, host_array, device_array):
        self.xp.asnumpy(device_array, out=host_array)  # returns once the copy is done

    def synchronize(self):
        self.xp.cuda.get_current_stream().synchronize()

    def mark(self):
        event = self.xp.cuda.Event()
        event.record()
        return event

    def elapsed_ms(self, start, end):
        end.synchronize()
        return self.xp.cuda.get_elapsed_time(start, end)


STAGES = ("upload", "prepare", "correlate", "peaks", "download", "fit")


class SeedPipeline:
    def __init__(self, device, reference, regions, dtype, fit_size=5):
        self.dev, xp = device, device.xp
        self.fft, self.fft_options = device.fft, device.fft_options
        self.dtype, self.F, self.S = dtype, fit_size, len(regions)
        self.w, self.h = int(regions[0][2]), int(regions[0][3])
        self.W2, self.H2 = 2 * self.w, 2 * self.h
        self.shape = reference.shape
        # Each window's pixels as indices into the flattened image.
        rows = regions[:, 1, None, None] + np.arange(self.h)[None, :, None]
        cols = regions[:, 0, None, None] + np.arange(self.w)[None, None, :]
        self.pixels = xp.asarray(rows * self.shape[1] + cols)
        # The F x F neighbourhood as (row, column) steps from the peak, row-major.
        half = (self.F - 1) // 2
        step_y, step_x = np.divmod(np.arange(self.F * self.F), self.F)
        self.step_y, self.step_x = xp.asarray(step_y - half), xp.asarray(step_x - half)
        self.operator = fit_operator(self.F)
        self.buffers = {}
        padded = xp.zeros((1, self.S, self.H2, self.W2), np.float32)
        self.prepare(xp.asarray(reference[None]), padded)
        self.conj_ref = xp.conj(self.forward(padded))
        device.synchronize()

    def buffers_for(self, count):
        """Device and pinned host buffers for batches of count images,
        allocated once per batch size; the padding is zeroed once here."""
        if count not in self.buffers:
            xp, dev = self.dev.xp, self.dev
            self.buffers[count] = {
                "host": dev.host_empty((count,) + self.shape, self.dtype),
                "image": xp.empty((count,) + self.shape, self.dtype),
                "padded": xp.zeros((count, self.S, self.H2, self.W2), np.float32),
                "peak": dev.host_empty((count, self.S), np.int64),
                "values": dev.host_empty((count, self.S, self.F * self.F), np.float32),
            }
        return self.buffers[count]

    def prepare(self, images, padded):
        """The windows of images, zero-mean, into the top-left W x H of padded."""
        windows = padded[:, :, :self.h, :self.w]
        windows[...] = images.reshape(images.shape[0], -1)[:, self.pixels]
        windows -= windows.mean(axis=(2, 3), keepdims=True)

    def forward(self, padded):
        return self.fft.rfft2(padded, **self.fft_options)

    def run(self, buf, stage_ms=None):
        """Offsets of the images in buf["host"]: (dx, dy, flags), each count x S.
        With stage_ms (a dict), adds each stage's milliseconds to it."""
        dev, xp = self.dev, self.dev.xp
        marks = []
        tick = (lambda: marks.append(dev.mark())) if stage_ms is not None else (lambda: None)
        tick()
        dev.upload(buf["image"], buf["host"])
        tick()
        self.prepare(buf["image"], buf["padded"])
        tick()
        spectrum = self.forward(buf["padded"])
        spectrum *= self.conj_ref
        corr = self.fft.irfft2(spectrum, s=(self.H2, self.W2), overwrite_x=True, **self.fft_options)
        tick()
        flat = corr.reshape(corr.shape[0], self.S, -1)
        peak = flat.argmax(axis=2)
        py, px = peak // self.W2, peak % self.W2
        around = ((py[..., None] + self.step_y) % self.H2) * self.W2 + (px[..., None] + self.step_x) % self.W2
        values = xp.take_along_axis(flat, around, axis=2)
        tick()
        dev.download(buf["peak"], peak)
        dev.download(buf["values"], values)
        tick()
        t0 = time.perf_counter()
        dx, dy, flags = self.finish(buf["peak"], buf["values"])
        if stage_ms is not None:
            stage_ms["fit"] = stage_ms.get("fit", 0.0) + 1e3 * (time.perf_counter() - t0)
            for name, a, b in zip(STAGES, marks, marks[1:]):
                stage_ms[name] = stage_ms.get(name, 0.0) + dev.elapsed_ms(a, b)
        return dx, dy, flags

    def finish(self, peak, values):
        """Host side: the integer peak u0 from the argmax index (indices past
        the middle of the layout are negative shifts) plus the fitted offset."""
        py, px = np.divmod(peak, self.W2)
        uy = np.where(py > self.h, py - self.H2, py)
        ux = np.where(px > self.w, px - self.W2, px)
        sx, sy, flags = peak_offsets(values, self.operator)
        return ux + sx, uy + sy, flags


def read_image(path):
    try:
        import tifffile
        return tifffile.imread(path)
    except ImportError:
        from PIL import Image
        return np.asarray(Image.open(path))


def read_regions(path, shape):
    regions = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2).reshape(-1, 4)
    if len(regions) == 0:
        sys.exit("peer_cupy: no windows in %s" % path)
    if np.any(regions[:, 2:] != regions[0, 2:]):
        sys.exit("peer_cupy: the windows of %s differ in size" % path)
    x, y, w, h = regions.T
    if np.any(x < 0) or np.any(y < 0) or np.any(x + w > shape[1]) or np.any(y + h > shape[0]):
        sys.exit("peer_cupy: a window of %s lies outside the %dx%d image" % (path, shape[1], shape[0]))
    return regions


def main():
    ap = argparse.ArgumentParser(description="The seed method with CuPy + cuFFT (doc/conventions.md), patterns/s from memory.")
    ap.add_argument("--ref", required=True, help="reference image")
    ap.add_argument("--regions", required=True, help="windows, 'x y w h' per line")
    ap.add_argument("--batch", type=int, default=128, help="images per batch (default 128)")
    ap.add_argument("--repeat", type=int, default=4096, help="patterns timed (default 4096)")
    ap.add_argument("--csv", help="write every image's offsets to this file")
    ap.add_argument("--stages", action="store_true", help="also time each stage (a second, separate loop)")
    ap.add_argument("--xp", choices=("cupy", "numpy"), default="cupy",
                    help="cupy (default, the GPU) or numpy with scipy.fft (the same code on the CPU)")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="scipy.fft threads for --xp numpy")
    ap.add_argument("images", nargs="+")
    a = ap.parse_args()

    reference = read_image(a.ref)
    images = np.stack([read_image(n) for n in a.images])
    if images.shape[1:] != reference.shape or images.ndim != 3:
        sys.exit("peer_cupy: every image must be one 2-D page of the reference's size %s" % (reference.shape,))
    regions = read_regions(a.regions, reference.shape)
    try:
        device = CupyDevice(a.workers) if a.xp == "cupy" else NumpyDevice(a.workers)
    except ImportError as e:
        sys.exit("peer_cupy: %s (--xp numpy runs the same pipeline with numpy and scipy.fft)" % e)
    pipe = SeedPipeline(device, reference, regions, images.dtype)

    if a.csv:
        with open(a.csv, "w") as out:
            out.write("image,region,dx,dy,flags\n")
            for first in range(0, len(images), a.batch):
                chunk = images[first:first + a.batch]
                buf = pipe.buffers_for(len(chunk))
                buf["host"][...] = chunk
                dx, dy, flags = pipe.run(buf)
                for i in range(len(chunk)):
                    for k in range(len(regions)):
                        out.write("%s,%d,%.6f,%.6f,%d\n" % (a.images[first + i], k, dx[i, k], dy[i, k], flags[i, k]))

    B = a.batch
    buf = pipe.buffers_for(B)
    for i in range(B):
        buf["host"][i] = images[i % len(images)]
    pipe.run(buf)  # untimed: plans, first-touch costs
    device.synchronize()
    done, start = 0, time.perf_counter()
    while done < a.repeat:
        pipe.run(buf)
        done += B
    device.synchronize()
    elapsed = time.perf_counter() - start
    name = "peer_cupy" if device.name == "cupy" else "peer_cupy xp=numpy workers=%d" % a.workers
    print("%s batch=%d regions=%d window=%dx%d image=%dx%d: %.1f patterns/s (%.4f ms/pattern)" % (
        name, B, len(regions), pipe.w, pipe.h, reference.shape[1], reference.shape[0], done / elapsed, 1e3 * elapsed / done))

    if a.stages:
        stage_ms, done, start = {}, 0, time.perf_counter()
        while done < a.repeat:
            pipe.run(buf, stage_ms)
            done += B
        elapsed = time.perf_counter() - start
        parts = "  ".join("%s %.4f" % (s, stage_ms[s] / done) for s in STAGES)
        print("%s stages, ms/pattern over %d patterns: %s  sum %.4f  (this loop end to end %.4f)" % (
            name, done, parts, sum(stage_ms.values()) / done, 1e3 * elapsed / done))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
