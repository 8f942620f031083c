"""bench/peer_fit.py - the sub-pixel step of doc/conventions.md's seed method, for
the Python peers (bench/peer_cupy.py, bench/peer_scipy.py): numpy only.

The F x F correlation values around the integer peak u0 (F odd; row-major,
the row y = -(F-1)/2 first, x running fastest within a row) are fitted by
least squares with

    f(x, y) = a + b x + c y + d x^2 + e x y + f y^2

and the sub-pixel offset is f's stationary point,

    sx = (e c - 2 f b) / (4 d f - e^2),   sy = (e b - 2 d c) / (4 d f - e^2).

When f has no maximum there (4 d f - e^2 <= 0 or d >= 0) or the point lies
more than (F - 1) / 2 from u0 in either axis, the offset is 0 and the row is
flagged, as `clxcorr offsets --mode seed` does (its flag 1).
"""
import numpy as np

FIT_FAILED = 1  # the flag clxcorr's seed mode sets on such rows


def fit_operator(F=5):
    """The 6 x F*F matrix that maps F x F values (flattened row-major) to the
    coefficients a, b, c, d, e, f of their least-squares quadratic."""
    if F < 3 or F % 2 == 0:
        raise ValueError("the fit size must be odd and at least 3, not %r" % (F,))
    half = (F - 1) // 2
    y, x = np.divmod(np.arange(F * F), F)
    x = (x - half).astype(np.float64)
    y = (y - half).astype(np.float64)
    design = np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    # (A^T A)^-1 A^T: A^T A is 6 x 6 and well conditioned for F >= 3.
    return np.linalg.solve(design.T @ design, design.T)


def peak_offsets(values, operator):
    """Sub-pixel offsets of the peaks whose neighbourhoods are values[..., F*F]
    (or values[..., F, F]). Returns (sx, sy, flags), each of values' leading
    shape: flags is FIT_FAILED where the fit gave no usable maximum (sx = sy
    = 0 there), else 0."""
    n = operator.shape[1]
    F = int(round(n ** 0.5))
    v = np.asarray(values, dtype=np.float64)
    lead = v.shape[:-1] if v.shape[-1] == n else v.shape[:-2]
    coef = v.reshape(-1, n) @ operator.T
    b, c, d, e, f = (coef[:, k] for k in range(1, 6))
    det = 4.0 * d * f - e * e
    maximum = (det > 0) & (d < 0)
    safe = np.where(maximum, det, 1.0)
    sx = np.where(maximum, (e * c - 2.0 * f * b) / safe, 0.0)
    sy = np.where(maximum, (e * b - 2.0 * d * c) / safe, 0.0)
    half = (F - 1) / 2.0
    good = maximum & (np.abs(sx) <= half) & (np.abs(sy) <= half)
    sx = np.where(good, sx, 0.0).reshape(lead)
    sy = np.where(good, sy, 0.0).reshape(lead)
    flags = np.where(good, 0, FIT_FAILED).astype(np.int32).reshape(lead)
    return sx, sy, flags
