"""OpenCL devices, as libclxcorr lists them (``clxcorr devices``)."""

from dataclasses import dataclass

from . import _core


@dataclass(frozen=True)
class Device:
    """One OpenCL device.

    ``spec`` ("P:D", platform and device index) is what
    :class:`clxcorr.Context` takes to open exactly this device; passing the
    Device itself does the same. Memory sizes are in bytes.
    """

    spec: str
    name: str
    platform: str
    vendor: str
    type: str               # "GPU", "CPU", "accelerator" or "other"
    driver: str
    opencl_c: str
    compute_units: int
    global_memory: int
    local_memory: int
    max_allocation: int
    fp64: bool              # double precision (offsets(..., double=True))
    compiler_available: bool
    available: bool

    def __repr__(self):
        return f"Device({self.spec!r}, {self.name!r}, {self.type}, {self.platform!r})"


def devices():
    """Every OpenCL device of every platform, in ``clxcorr devices``'s order.

    An empty list when there is no OpenCL platform; :class:`clxcorr.Error`
    when the OpenCL loader itself fails.
    """
    found = []
    for d in _core.devices():
        spec = f"{d.pop('platform_index')}:{d.pop('device_index')}"
        found.append(Device(spec=spec, **d))
    return found
