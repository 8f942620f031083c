#!/usr/bin/env python3
"""Makes the committed EBSD pattern-file fixtures in this directory with the
public tools that write those formats, so that clxcorr's readers are tested
on files it did not write itself.

The patterns are the six images of a small synthetic set, made by the
project's own generator (deterministic; the tests make the same set again):

    samples/clxcorr-samples --out SET --size 96x80 --count 6 --grid 3x2 \\
        --window 24x24 --margin 8 --max-shift 2

taken as a scan of 2 rows x 3 columns, image_0001 .. image_0006 in row order.

    patterns.h5        kikuchipy (EBSD.save): h5ebsd, uint16, one scan,
                       steps 1.5 um (x) and 2.0 um (y), pattern centre
                       (0.42, 0.31, 0.58) in kikuchipy's (Bruker's) convention
    two_scans.h5       kikuchipy: the same scan saved twice ("Scan 1" and
                       "Scan 2", the second with the patterns in reverse order)
    patterns.up2       PyEBSDIndex (UPFile): EDAX UP2, version 3 header, 3 x 2 grid
    patterns8.up1      PyEBSDIndex: EDAX UP1 (version 1) of the 8-bit patterns
                       (the 16-bit ones shifted right by 8 bits)
    nordif/Pattern.dat kikuchipy (EBSD.save, plugin "nordif") of the 8-bit patterns;
    nordif/Setting.txt a NORDIF 3.1 settings file for it, written here in
                       NORDIF's layout (kikuchipy writes none)
    patterns.h5oina    h5py: Oxford's H5OINA layout (format version 6.0, from
                       Oxford's published specification), the 8-bit patterns
                       LZF-compressed (h5py's LZF filter, as AZtec writes them),
                       pattern centres per point in Oxford's convention

Run from the source tree, with kikuchipy, pyebsdindex, h5py and tifffile
installed (pip; never a dependency of clxcorr itself):

    python3 tests/data/ebsd/make_fixtures.py samples/clxcorr-samples
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS, COLS = 2, 3
STEP_X, STEP_Y = 1.5, 2.0
PC = (0.42, 0.31, 0.58)


def patterns(generator):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([generator, "--out", d, "--size", "96x80", "--count", "6", "--grid", "3x2",
                        "--window", "24x24", "--margin", "8", "--max-shift", "2"], check=True,
                       stdout=subprocess.DEVNULL)
        images = [tifffile.imread(os.path.join(d, "image_%04d.tif" % (i + 1))) for i in range(ROWS * COLS)]
    stack = np.stack(images).astype(np.uint16)
    return stack.reshape(ROWS, COLS, *stack.shape[1:])


def kikuchipy_files(p16):
    import kikuchipy as kp
    s = kp.signals.EBSD(p16)
    # Navigation axes: (columns, rows), as hyperspy orders them.
    s.axes_manager.navigation_axes[0].scale = STEP_X
    s.axes_manager.navigation_axes[1].scale = STEP_Y
    s.detector.pc = PC
    s.save(os.path.join(HERE, "patterns.h5"), overwrite=True)
    s.save(os.path.join(HERE, "two_scans.h5"), overwrite=True)
    reverse = kp.signals.EBSD(p16.reshape(ROWS * COLS, *p16.shape[2:])[::-1].reshape(p16.shape))
    reverse.save(os.path.join(HERE, "two_scans.h5"), add_scan=True, scan_number=2)
    os.makedirs(os.path.join(HERE, "nordif"), exist_ok=True)
    kp.signals.EBSD((p16 >> 8).astype(np.uint8)).save(os.path.join(HERE, "nordif", "Pattern.dat"),
                                                      overwrite=True)


def up_files(p16):
    from pyebsdindex import ebsd_pattern
    for name, data, version in (("patterns.up2", p16, 3), ("patterns8.up1", (p16 >> 8).astype(np.uint8), 1)):
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            os.remove(path)
        f = ebsd_pattern.UPFile(path)
        f.version = version
        f.patternH, f.patternW = data.shape[2], data.shape[3]
        f.nCols, f.nRows = COLS, ROWS
        f.xStep, f.yStep = STEP_X, STEP_Y
        f.write_header(writeBlank=True)
        f.pat_writer(data.reshape(ROWS * COLS, *data.shape[2:]), 0, ROWS * COLS, data.dtype.type)


NORDIF_SETTINGS = """[NORDIF]\t\t
Software version\t3.1.2\t
\t\t
[Microscope]\t\t
Manufacturer\tZeiss\t
Model\tSupra 55 VP\t
Magnification\t200\t#
Scan direction\tDirect\t
Accelerating voltage\t20\tkV
Working distance\t24.7\tmm
Tilt angle\t70\t\xb0
\t\t
[Detector angles]\t\t
Euler 1\t0\t\xb0
Euler 2\t0\t\xb0
Euler 3\t0\t\xb0
Azimuthal\t0\t\xb0
Elevation\t-20\t\xb0
\t\t
[Acquisition settings]\t\t
Frame rate\t100\tfps
Resolution\t{w}x{h}\tpx
Exposure time\t9000\t\xb5s
Gain\t7\t
\t\t
[Calibration settings]\t\t
Frame rate\t10\tfps
Resolution\t{w}x{h}\tpx
Exposure time\t99000\t\xb5s
Gain\t8\t
\t\t
[Area]\t\t
Top\t89.200 (223)\t\xb5m (px)
Left\t50.400 (126)\t\xb5m (px)
Width\t{aw:.3f} ({cols})\t\xb5m (px)
Height\t{ah:.3f} ({rows})\t\xb5m (px)
Step size\t{step}\t\xb5m
Number of samples\t{rows}x{cols}\t#
Scan time\t00:00:00\t
\t\t
"""


def nordif_settings(p16):
    text = NORDIF_SETTINGS.format(w=p16.shape[3], h=p16.shape[2], rows=ROWS, cols=COLS, step=STEP_X,
                                  aw=COLS * STEP_X, ah=ROWS * STEP_X)
    with open(os.path.join(HERE, "nordif", "Setting.txt"), "wb") as f:
        f.write(text.replace("\n", "\r\n").encode("latin-1"))


def oxford_file(p16):
    p8 = (p16 >> 8).astype(np.uint8).reshape(ROWS * COLS, *p16.shape[2:])
    h, w = p8.shape[1:]
    n = ROWS * COLS
    with h5py.File(os.path.join(HERE, "patterns.h5oina"), "w") as f:
        f["Manufacturer"] = np.array([b"Oxford Instruments"])
        f["Format Version"] = np.array([b"6.0"])
        f["Software Version"] = np.array([b"6.0.7014.1 (clxcorr test fixture)"])
        f["Index"] = np.array([b"1"])
        data = f.create_group("1/EBSD/Data")
        header = f.create_group("1/EBSD/Header")
        data.create_dataset("Processed Patterns", data=p8, chunks=(1, h, w), compression="lzf")
        # Oxford's convention: x and y over the width, y from the bottom; z over the width.
        pcx = np.full((n, 1), PC[0], np.float32)
        pcy = np.full((n, 1), (1 - PC[1]) * h / w, np.float32)
        pcz = np.full((n, 1), PC[2] * h / w, np.float32)
        data["Pattern Center X"], data["Pattern Center Y"], data["Detector Distance"] = pcx, pcy, pcz
        data["Euler"] = np.tile(np.array([[0.1, 0.2, 0.3]], np.float32), (n, 1))
        header["X Cells"] = np.array([[COLS]], np.int32)
        header["Y Cells"] = np.array([[ROWS]], np.int32)
        header["X Step"] = np.array([[STEP_X]], np.float32)
        header["Y Step"] = np.array([[STEP_Y]], np.float32)
        header["Pattern Width"] = np.array([[w]], np.int32)
        header["Pattern Height"] = np.array([[h]], np.int32)
        header["Tilt Angle"] = np.array([[np.deg2rad(70)]], np.float32)
        header["Detector Orientation Euler"] = np.array([[0, np.deg2rad(91.5), 0]], np.float32)
        header["Camera Binning Mode"] = np.array([b"8x8 (%dx%d px)" % (w, 128)])


def main():
    p16 = patterns(sys.argv[1] if len(sys.argv) > 1 else "samples/clxcorr-samples")
    kikuchipy_files(p16)
    up_files(p16)
    nordif_settings(p16)
    oxford_file(p16)


if __name__ == "__main__":
    main()
