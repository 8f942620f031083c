"""Windows: clxcorr.grid, windows files, and arrays of every integer kind give
the same rows."""

import numpy as np

import clxcorr


def test_grid_layout():
    windows = clxcorr.grid((80, 96), count=(3, 2), size=(24, 24), margin=8)
    assert windows.dtype == np.int32 and windows.shape == (6, 4)
    np.testing.assert_array_equal(windows[:, 2:], 24)
    # Row by row, x fastest, inside the margin, spread to the far margin.
    assert list(windows[:3, 1]) == [8] * 3 and windows[0, 0] == 8
    assert windows[2, 0] + 24 == 96 - 8 and windows[5, 1] + 24 == 80 - 8


def test_grid_takes_an_image_or_a_shape(texture):
    reference, stack, _ = texture
    by_shape = clxcorr.grid(reference.shape, (3, 2), (24, 24), margin=8)
    np.testing.assert_array_equal(clxcorr.grid(reference, (3, 2), (24, 24), margin=8), by_shape)
    np.testing.assert_array_equal(clxcorr.grid(stack, (3, 2), (24, 24), margin=8), by_shape)


def test_windows_file(tmp_path, windows):
    path = tmp_path / "windows.txt"
    path.write_text("# x y w h\n" + "".join(f"{x} {y} {w} {h}\n" for x, y, w, h in windows) + "\n")
    np.testing.assert_array_equal(clxcorr.read_windows(path), windows)
    np.testing.assert_array_equal(clxcorr.read_windows(str(path)), windows)


def test_windows_of_any_integer_kind(ctx, texture, windows):
    reference, stack, _ = texture
    expected = ctx.offsets(reference, stack[:2], windows)
    for other in (windows.astype(np.int64), windows.astype(np.uint16), windows.astype(float), windows.tolist(),
                  np.asfortranarray(windows)):
        np.testing.assert_array_equal(ctx.offsets(reference, stack[:2], other), expected)
