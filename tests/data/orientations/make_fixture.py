#!/usr/bin/env python3
"""Makes the committed .ang fixture in this directory with orix, a public
tool that writes EDAX TSL's format, so that clxcorr's reader is tested on a
file it did not write itself.

    scan.ang    orix 0.15.0 (orix.io.save): a square grid of 2 rows x 3
                columns, steps 1.5 um (x) and 2.0 um (y); point k (row by
                row, from 0) has the Bunge angles (30 + 10 k, 40 + 5 k,
                50 + k) degrees, except point 4 (row 1, column 1), which is
                not indexed (orix writes its angles as 4 pi and its CI as -1)

Run from the source tree, with orix installed (pip install orix; never a
dependency of clxcorr itself):

    python3 tests/data/orientations/make_fixture.py
"""
import os

import numpy as np
from orix import io
from orix.crystal_map import CrystalMap, PhaseList
from orix.quaternion import Rotation

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS, COLS = 2, 3
STEP_X, STEP_Y = 1.5, 2.0
NOT_INDEXED = 4


def main():
    degrees = np.array([[30 + 10 * k, 40 + 5 * k, 50 + k] for k in range(ROWS * COLS)], dtype=float)
    y, x = np.meshgrid(np.arange(ROWS) * STEP_Y, np.arange(COLS) * STEP_X, indexing="ij")
    phase_id = np.zeros(ROWS * COLS, dtype=int)
    phase_id[NOT_INDEXED] = -1
    phases = PhaseList(names=["ni"], point_groups=["m-3m"], space_groups=[225], ids=[0])
    phases.add_not_indexed()
    xmap = CrystalMap(rotations=Rotation.from_euler(np.radians(degrees)), phase_id=phase_id, x=x.ravel(),
                      y=y.ravel(), phase_list=phases,
                      prop={"iq": np.linspace(1, 6, ROWS * COLS), "ci": np.linspace(0.1, 0.6, ROWS * COLS)})
    io.save(os.path.join(HERE, "scan.ang"), xmap, overwrite=True)


if __name__ == "__main__":
    main()
