"""Devices and contexts: the list, opening each way, the library's log."""

import logging

import pytest

import clxcorr


def test_devices():
    found = clxcorr.devices()
    if not found:
        pytest.skip("no OpenCL device")
    for d in found:
        assert isinstance(d, clxcorr.Device)
        platform, device = (int(v) for v in d.spec.split(":"))
        assert platform >= 0 and device >= 0
        assert d.type in ("GPU", "CPU", "accelerator", "other")
        assert d.global_memory > 0 and d.compute_units > 0 and isinstance(d.fp64, bool)
        assert repr(d).startswith(f"Device({d.spec!r}, {d.name!r}")


def test_context_on_each_device_form(ctx):
    device = ctx.device
    with clxcorr.Context(device) as by_device, clxcorr.Context(device.spec) as by_spec:
        assert by_device.device == device and by_spec.device == device
    assert "closed" in repr(by_device)
    assert repr(ctx) == f"<clxcorr.Context {device!r}>"


def test_library_log_reaches_logging(caplog):
    """The library's info lines go to the "clxcorr" logger when it listens."""
    with caplog.at_level(logging.INFO, logger="clxcorr"):
        clxcorr.Context().close()
    assert any(r.name == "clxcorr" and r.message.startswith("device ") for r in caplog.records)


def test_versions():
    assert clxcorr.library_version == clxcorr.__version__
    assert "clfft" in clxcorr.library_features.split()
