"""A minimal TIFF writer for the tests: uncompressed greyscale pages of
uint8, uint16 or float32, one strip each, so that file inputs need no
imaging package."""

import struct

import numpy as np

_SAMPLE_FORMAT = {"u": 1, "f": 3}


def write_tiff(path, pages):
    """Writes each 2-D array of `pages` as one page of a little-endian TIFF."""
    pages = [np.ascontiguousarray(p) for p in pages]
    out = bytearray(b"II*\0" + struct.pack("<I", 0))
    link = 4                                   # where the next IFD's offset goes
    for page in pages:
        height, width = page.shape
        data_at = len(out)
        out += page.astype(page.dtype.newbyteorder("<")).tobytes()
        out += b"\0" * (len(out) % 2)
        entries = [
            (256, 4, width), (257, 4, height), (258, 3, page.dtype.itemsize * 8), (259, 3, 1), (262, 3, 1),
            (273, 4, data_at), (277, 3, 1), (278, 4, height), (279, 4, page.nbytes),
            (339, 3, _SAMPLE_FORMAT[page.dtype.kind]),
        ]
        ifd_at = len(out)
        struct.pack_into("<I", out, link, ifd_at)
        out += struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            out += struct.pack("<HHI", tag, kind, 1) + struct.pack("<I" if kind == 4 else "<HH", *(
                (value,) if kind == 4 else (value, 0)))
        link = len(out)
        out += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(out)
