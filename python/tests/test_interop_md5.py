"""clxcorr shares its process with OpenSSL, HDF5 and dask (issue #35).

Debian's libclFFT exports MD5_Init, MD5_Update and MD5_Final of its own.
When libclxcorr linked it, libcrypto (loaded in the same group, through
libhdf5 -> libcurl -> libssl) bound its MD5 calls to clFFT's, which write
past OpenSSL's context, and hashlib's md5 after `import clxcorr` failed or
crashed. Every kikuchipy session does this (dask's tokenize hashes each
array with md5).

The digests are checked against published values (RFC 1321, FIPS 180) and
against Python's own md5 (_md5), which does not go through OpenSSL. Only
test_fresh_process makes the order that crashed: in the pytest process,
libcrypto is already loaded (pytest and numpy import hashlib) before
conftest imports clxcorr, and bound right, so the tests here in process
check only that clxcorr, clFFT, HDF5 and md5 work side by side. The fresh
interpreter imports clxcorr first; it failed on the linked clFFT with
"ValueError: no reason supplied" and a segmentation fault (exit -11).
"""

import hashlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import clxcorr

# RFC 1321's test suite and FIPS 180's "abc".
MD5 = {
    b"": "d41d8cd98f00b204e9800998ecf8427e",
    b"abc": "900150983cd24fb0d6963f7d28e17f72",
    b"message digest": "f96b697d7cb7938d525a2f31aaf161d0",
    b"12345678901234567890123456789012345678901234567890123456789012345678901234567890":
        "57edf4a22be3c955ac49da2e2107b67a",
}
SHA1_ABC = "a9993e364706816aba3e25717850c26c9cd0d89d"
SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
MD5_MILLION_A = "7707d6ae4e027c70eea2a935c2296f21"


def reference_md5(data):
    """Python's own md5, where the interpreter has it (it does not call OpenSSL)."""
    try:
        import _md5
    except ImportError:
        return None
    return _md5.md5(data).hexdigest()


def tokenize_like_dask(arrays):
    """What dask.base.tokenize does with numpy arrays: md5 of each buffer,
    then md5 of the digests with the shapes and dtypes."""
    parts = []
    for a in arrays:
        h = hashlib.md5(usedforsecurity=False)
        h.update(memoryview(np.ascontiguousarray(a)).cast("B"))
        parts.append((h.hexdigest(), a.shape, str(a.dtype)))
    return hashlib.md5(str(parts).encode(), usedforsecurity=False).hexdigest(), parts


def buffers():
    rng = np.random.default_rng(35)
    # Sizes around md5's 64-byte block and its 56-byte padding limit, and large ones.
    sizes = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 4096, 65537, 1 << 20]
    return [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]


def test_hashlib_digests():
    """Known digests, whole and in pieces, in the test process."""
    assert "clfft" in clxcorr.library_features.split()
    for data, digest in MD5.items():
        assert hashlib.md5(data).hexdigest() == digest
        h = hashlib.new("md5")
        for i in range(0, len(data), 7):
            h.update(data[i:i + 7])
        assert h.hexdigest() == digest
    assert hashlib.md5(b"a" * 1_000_000).hexdigest() == MD5_MILLION_A
    assert hashlib.sha1(b"abc").hexdigest() == SHA1_ABC
    assert hashlib.sha256(b"abc").hexdigest() == SHA256_ABC


def test_clfft_then_md5(ctx, texture, windows):
    """clFFT loaded and used, then md5 of many buffers, then clFFT again."""
    reference, stack, shifts = texture
    rows = ctx.offsets(reference, stack, windows, method="fft", fft="clfft")
    assert (rows["flags"] == 0).all()
    error = np.hypot(rows["dx"] - shifts[rows["image"], 0], rows["dy"] - shifts[rows["image"], 1])
    assert error.max() < 0.05   # test_offsets.py's ACCURATE_TOLERANCE
    for data in buffers():
        want = reference_md5(data.tobytes())
        pieces = hashlib.md5()
        for part in np.array_split(data, 3):
            pieces.update(part)
        for got in hashlib.md5(data).hexdigest(), pieces.hexdigest():
            assert want is None or got == want, f"md5 of {data.size} bytes"
    token, _ = tokenize_like_dask(buffers())
    assert token == tokenize_like_dask(buffers())[0]
    again = ctx.offsets(reference, stack, windows, method="fft", fft="clfft")
    np.testing.assert_array_equal(again, rows)


def test_h5py_round_trip(tmp_path):
    """HDF5 (libhdf5 links libcurl and OpenSSL) writes and reads a file."""
    h5py = pytest.importorskip("h5py", reason="h5py not installed (Debian: python3-h5py)")
    data = np.arange(24 * 32, dtype=np.uint16).reshape(24, 32)
    with h5py.File(tmp_path / "t.h5", "w") as f:
        f.create_dataset("patterns", data=data, compression="gzip", chunks=(8, 32))
        f["patterns"].attrs["note"] = "issue 35"
    with h5py.File(tmp_path / "t.h5", "r") as f:
        np.testing.assert_array_equal(f["patterns"][...], data)
        assert f["patterns"].attrs["note"] == "issue 35"


def test_dask_tokenize():
    pytest.importorskip("dask", reason="dask not installed; test_fresh_process emulates its tokenize")
    from dask.base import tokenize
    a = np.arange(100_000, dtype=np.float64)
    assert tokenize(a) == tokenize(a.copy())
    assert tokenize(a) != tokenize(a + 1)
    import dask.array as da
    assert float(da.from_array(a, chunks=10_000).sum().compute()) == float(a.sum())


# The order that crashed: clxcorr first, then OpenSSL's md5 in the same process.
CHILD = textwrap.dedent("""
    import sys
    try:
        with open("/proc/self/maps") as maps:
            crypto_first = "libcrypto" in maps.read()
    except OSError:
        crypto_first = "_hashlib" in sys.modules
    if crypto_first:
        print("libcrypto first")
        sys.exit(0)
    import clxcorr
    import hashlib
    import numpy as np
    sys.path.insert(0, {tests!r})
    from test_interop_md5 import MD5, MD5_MILLION_A, SHA256_ABC, buffers, reference_md5, tokenize_like_dask
    assert hashlib.md5.__name__ == "openssl_md5", hashlib.md5
    for data, digest in MD5.items():
        assert hashlib.md5(data).hexdigest() == digest, (data, hashlib.md5(data).hexdigest())
    assert hashlib.md5(b"a" * 1_000_000).hexdigest() == MD5_MILLION_A
    assert hashlib.sha256(b"abc").hexdigest() == SHA256_ABC
    for data in buffers():
        want = reference_md5(data.tobytes())
        assert want is None or hashlib.md5(data).hexdigest() == want, data.size
    for i in range(2000):
        tokenize_like_dask([np.full(i % 300, i, dtype=np.int32)])
    try:
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:
        with h5py.File(sys.argv[1], "w") as f:
            f["a"] = np.arange(10)
        with h5py.File(sys.argv[1], "r") as f:
            assert list(f["a"][...]) == list(range(10))
    if {use_clfft}:
        ctx = clxcorr.Context()
        image = np.random.default_rng(1).random((64, 64))
        rows = ctx.offsets(image, np.roll(image, 1, axis=1)[None], np.array([(16, 16, 32, 32)]), method="fft",
                           fft="clfft", refine="none")
        # A whole-pixel move of noise: 3e-5 px off on PoCL.
        assert abs(rows["dx"][0] - 1) < 1e-4 and abs(rows["dy"][0]) < 1e-4, rows
        assert hashlib.md5(b"abc").hexdigest() == MD5[b"abc"]
        ctx.close()
    print("digests ok")
""")


@pytest.mark.parametrize("use_clfft", [False, True], ids=["import-only", "clfft-plan"])
def test_fresh_process(tmp_path, use_clfft, request):
    if use_clfft:
        request.getfixturevalue("ctx")      # skips without an OpenCL device
    env = dict(os.environ)
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(clxcorr.__file__)))
    env["PYTHONPATH"] = package_dir + os.pathsep + env.get("PYTHONPATH", "")
    tests = os.path.dirname(os.path.abspath(__file__))
    script = CHILD.format(tests=tests, use_clfft=use_clfft)
    child = subprocess.run([sys.executable, "-c", script, str(tmp_path / "c.h5")], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    if child.returncode == 0 and child.stdout.strip() == "libcrypto first":
        pytest.skip("libcrypto is loaded before `import clxcorr` here: the order of issue #35 cannot be made")
    assert child.returncode == 0 and child.stdout.strip() == "digests ok", \
        f"exit status {child.returncode}: {child.stderr[-2000:]}"
