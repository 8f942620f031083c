"""Results out: numpy structured arrays with the command's CSV columns.

The library writes clx_result records; they are read in place through a
dtype laid out as the compiler laid out the struct (module.c's
RESULT_LAYOUT), then copied column by column into the caller's array,
whose columns are the CSV's for the same options, with ``image`` an index.
"""

import numpy as np

from . import _core

_itemsize, _layout = _core.RESULT_LAYOUT
RAW = np.dtype({
    "names": [name for name, _, _ in _layout],
    "formats": [fmt for _, _, fmt in _layout],
    "offsets": [offset for _, offset, _ in _layout],
    "itemsize": _itemsize,
})

# The CSV's columns, group by group (src/cli/output/row_format.c).
BASE = [("image", "i8"), ("region", "i4"), ("x", "f8"), ("y", "f8"), ("dx", "f8"), ("dy", "f8"),
        ("peak", "f8"), ("flags", "u4")]
GROUPS = {
    "accurate": [("zncc", "f8"), ("peak_ratio", "f8"), ("iterations", "i4")],
    "icgn": [("znssd", "f8"), ("sigma_dx", "f8"), ("sigma_dy", "f8")],
    "shape": [("dudx", "f8"), ("dudy", "f8"), ("dvdx", "f8"), ("dvdy", "f8"),
              ("exx", "f8"), ("eyy", "f8"), ("exy", "f8")],
}
# Columns computed here from the record's own, not read from it.
STRAIN = ("exx", "eyy", "exy")


def green_lagrange(raw):
    """Green-Lagrange strain E = (F^T F - I) / 2 with F = I + grad u, as the
    command computes it (row_format.c, row_green_lagrange)."""
    ux, uy, vx, vy = raw["dudx"], raw["dudy"], raw["dvdx"], raw["dvdy"]
    return {"exx": ux + 0.5 * (ux * ux + vx * vx),
            "eyy": vy + 0.5 * (uy * uy + vy * vy),
            "exy": 0.5 * (uy + vx + ux * uy + vx * vy)}


def result_dtype(groups):
    """The structured dtype of rows with these column groups."""
    columns = list(BASE)
    for group in groups:
        columns += GROUPS[group]
    return np.dtype(columns)


def rows(raw, first_image, image_count, regions, dtype):
    """The rows of image_count images from first_image on, from their raw
    records (image by image, windows in order)."""
    nregions = len(regions)
    out = np.empty(image_count * nregions, dtype=dtype)
    out["image"] = np.repeat(np.arange(first_image, first_image + image_count, dtype=np.int64), nregions)
    out["region"] = np.tile(np.arange(nregions, dtype=np.int32), image_count)
    # The window's centre in reference coordinates: x0 + (w - 1) / 2.
    out["x"] = np.tile(regions[:, 0] + (regions[:, 2] - 1) / 2.0, image_count)
    out["y"] = np.tile(regions[:, 1] + (regions[:, 3] - 1) / 2.0, image_count)
    strain = green_lagrange(raw) if "exx" in dtype.names else {}
    for name in dtype.names[4:]:
        out[name] = strain[name] if name in STRAIN else raw[name]
    return out
