"""The exceptions clxcorr raises: one class per libclxcorr status.

Every error the library reports arrives as the subclass of :class:`Error` for
its status, carrying the library's one-line message (``str(e)``) and the
status name (``e.status``, e.g. ``"CLX_ERR_SIZE"``). The classes also derive
from the built-in exception a Python caller would expect (``ValueError`` for
bad arguments, ``OSError`` for files, ``MemoryError``), so ``except
ValueError`` catches a window outside the image as well.
"""

from . import _core


class Error(Exception):
    """An error of libclxcorr or of the arguments given to it.

    Attributes:
        status: the library's status name (``"CLX_ERR_REGION"``, ...).
        code: its numeric value (negative).
    """

    def __init__(self, message, status="CLX_ERR_UNKNOWN"):
        super().__init__(message)
        self.status = status
        self.code = _core.STATUS.get(status, 0)

    def __str__(self):
        return self.args[0] if self.args else ""


class ArgumentError(Error, ValueError):
    """An argument is out of range or of the wrong kind (an image of the
    wrong shape or dtype, an option the library refuses)."""


class HostMemoryError(Error, MemoryError):
    """Host memory ran out."""


class FileError(Error, OSError):
    """A file is missing or cannot be read or written."""

    def __init__(self, message, status="CLX_ERR_IO"):
        Error.__init__(self, message, status)


class FormatError(Error, ValueError):
    """An image or windows file is corrupt or of a format clxcorr does not read."""


class NoDeviceError(Error, RuntimeError):
    """No OpenCL device matches, or none can run the job."""


class UnsupportedError(Error, RuntimeError):
    """The device lacks a needed feature (double precision, say)."""


class OpenCLError(Error, RuntimeError):
    """An OpenCL call failed."""


class DeviceMemoryError(Error, MemoryError):
    """The device ran out of memory or resources."""


class BuildError(Error, RuntimeError):
    """A kernel failed to compile."""


class FFTError(Error, RuntimeError):
    """The FFT library failed."""


class SizeError(Error, ValueError):
    """An image does not have the reference's size."""


class RegionError(Error, ValueError):
    """A window is invalid (not four integers, sizes differ, too small) or
    lies outside the image."""


class StateError(Error, RuntimeError):
    """A call out of order, or on a context or stream already closed."""


class CancelledError(Error):
    """The run was stopped by its caller."""


# The library's status names, each to its class (module.c raises by name).
BY_STATUS = {
    "CLX_ERR_ARGUMENT": ArgumentError,
    "CLX_ERR_HOST_MEMORY": HostMemoryError,
    "CLX_ERR_IO": FileError,
    "CLX_ERR_FORMAT": FormatError,
    "CLX_ERR_NO_DEVICE": NoDeviceError,
    "CLX_ERR_UNSUPPORTED": UnsupportedError,
    "CLX_ERR_OPENCL": OpenCLError,
    "CLX_ERR_DEVICE_MEMORY": DeviceMemoryError,
    "CLX_ERR_BUILD": BuildError,
    "CLX_ERR_FFT": FFTError,
    "CLX_ERR_SIZE": SizeError,
    "CLX_ERR_REGION": RegionError,
    "CLX_ERR_STATE": StateError,
    "CLX_ERR_CANCELLED": CancelledError,
}

_core._set_exceptions(BY_STATUS)
