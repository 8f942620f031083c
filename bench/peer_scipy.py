#!/usr/bin/env python3
"""The seed pipeline on the CPU as a numpy user writes it: peer_cupy.py's
steps with scipy.fft in place of cuFFT, on all cores (scipy.fft's workers).

zero-mean windows -> zero-pad to 2W x 2H -> batched rfft2 -> * conj(reference
spectrum) -> irfft2 -> argmax -> 5 x 5 neighbourhood -> quadratic
least-squares fit on the host (bench/peer_fit.py, the seed's F x F fit,
shared with peer_cupy.py: a fit without a maximum within (F-1)/2 of the
integer peak leaves the offset integer and flags the row, as clxcorr does).

  peer_scipy.py --ref REF.tif --regions REGIONS.txt [--batch B] [--repeat N]
                [--workers W] [--csv OUT] IMAGE...

Throughput from memory (the images decoded once), as peer_cupy measures it.
"""
import argparse
import os
import time

import numpy as np
import scipy.fft

from peer_fit import fit_operator, peak_offsets  # beside this file, in bench/


class Pipeline:
    def __init__(self, ref, regs, workers, F=5):
        self.F, self.w, self.h, self.workers = F, int(regs[0][2]), int(regs[0][3]), workers
        self.ys = regs[:, 1][:, None, None] + np.arange(self.h)[None, :, None]
        self.xs = regs[:, 0][:, None, None] + np.arange(self.w)[None, None, :]
        self.Rc = np.conj(self.spectrum(ref[None]))
        self.P = fit_operator(F)

    def spectrum(self, imgs):
        sub = imgs[:, self.ys, self.xs].astype(np.float32)
        sub -= sub.mean(axis=(2, 3), keepdims=True)
        return scipy.fft.rfft2(sub, s=(2 * self.h, 2 * self.w), workers=self.workers)

    def run(self, batch):
        X = scipy.fft.irfft2(self.spectrum(batch) * self.Rc, s=(2 * self.h, 2 * self.w), workers=self.workers)
        B, S, H2, W2 = X.shape
        am = np.argmax(X.reshape(B, S, -1), axis=2)
        py, px = am // W2, am % W2
        r = (self.F - 1) // 2
        o = np.arange(-r, r + 1)
        iy = (py[..., None, None] + o[None, None, :, None]) % H2
        ix = (px[..., None, None] + o[None, None, None, :]) % W2
        nb = X[np.arange(B)[:, None, None, None], np.arange(S)[None, :, None, None], iy, ix]
        sx, sy, flags = peak_offsets(nb, self.P)
        dx = np.where(px > W2 // 2, px - W2, px) + sx
        dy = np.where(py > H2 // 2, py - H2, py) + sy
        return dx, dy, flags


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--regions", required=True)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=96)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--csv")
    ap.add_argument("images", nargs="+")
    a = ap.parse_args()
    import tifffile
    ref = tifffile.imread(a.ref)
    imgs = np.stack([tifffile.imread(n) for n in a.images])
    regs = np.loadtxt(a.regions, dtype=np.int64, comments="#").reshape(-1, 4)
    pl = Pipeline(ref, regs, a.workers)
    if a.csv:
        dx, dy, flags = pl.run(imgs)
        with open(a.csv, "w") as f:
            f.write("image,region,dx,dy,flags\n")
            for i, n in enumerate(a.images):
                for k in range(len(regs)):
                    f.write("%s,%d,%.6f,%.6f,%d\n" % (n, k, dx[i, k], dy[i, k], flags[i, k]))
    B = a.batch
    hb = np.stack([imgs[i % len(imgs)] for i in range(B)])
    pl.run(hb)
    t = time.perf_counter()
    done = 0
    while done < a.repeat:
        pl.run(hb)
        done += B
    el = time.perf_counter() - t
    print("peer_scipy workers=%d batch=%d regions=%d window=%dx%d image=%dx%d: %.1f patterns/s (%.4f ms/pattern)" % (
        a.workers, B, len(regs), regs[0][2], regs[0][3], imgs.shape[2], imgs.shape[1], done / el, 1e3 * el / done))


if __name__ == "__main__":
    main()
