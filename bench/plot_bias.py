#!/usr/bin/env python3
"""bench/plot_bias.py - draws the bias curves bench/interp-bias.sh measured.

    python3 bench/plot_bias.py OUT_DIR PICTURE.png

OUT_DIR is interp-bias.sh's: one SET.METHOD.bias file per set and column
("FRACTION MEAN_ERROR SAMPLES" lines, then a summary). One panel per set,
one curve per column, the mean error (px) against the true shift's
sub-pixel part. Needs matplotlib (a benchmark's tool, not clxcorr's).
"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SETS = [("speckle", "speckle, noise-free"), ("speckle-noise", "speckle, noise 2 % of the range"),
        ("kikuchi", "Kikuchi-like, noise-free")]


def curve(path):
    xs, ys = [], []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0] == "summary":
                continue
            xs.append(float(fields[0]))
            ys.append(float(fields[1]))
    return xs, ys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out_dir, picture = sys.argv[1], sys.argv[2]
    fig, axes = plt.subplots(1, len(SETS), figsize=(15, 4.6), sharey=False)
    for ax, (name, title) in zip(axes, SETS):
        for path in sorted(glob.glob(os.path.join(out_dir, name + ".*.bias"))):
            method = os.path.basename(path)[len(name) + 1:-len(".bias")]
            xs, ys = curve(path)
            style = "-" if method.startswith("icgn") else "--"
            ax.plot(xs, ys, style, marker=".", label=method)
        ax.axhline(0, color="grey", linewidth=0.6)
        ax.set_title(title)
        ax.set_xlabel("true shift's sub-pixel part (px)")
        ax.set_ylabel("mean error (px)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, title="refinement:interpolation", title_fontsize=8)
    fig.suptitle("clxcorr accurate mode: bias against sub-pixel shift (bench/interp-bias.sh)")
    fig.tight_layout()
    fig.savefig(picture, dpi=110)


if __name__ == "__main__":
    main()
