"""The options of offsets(), named as the command's, into clx_plan_options fields.

Values are checked by the library (clx_plan_create names what is wrong);
enum values are the library's own names. Only the spelling is translated
here, plus the command's two shorthands: ``fft=`` (a kernel parameter) and
``refine=`` naming the refiner or "none".
"""

import operator

from . import _core
from ._errors import ArgumentError

# Keyword -> clx_plan_options field, for those passed on as they are.
FIELDS = {
    "mode": "mode",
    "method": "method",
    "max_shift": "max_shift",
    "estimator": "estimator",
    "fit_size": "fit_size",
    "batch": "batch",
    "prefilter": "prefilter",
    "window_fn": "window",
    "window_alpha": "window_alpha",
    "passes": "passes",
    "iterations": "refine",
    "tol": "tolerance",
    "fine_shift": "fine_shift",
    "interp": "interp",
    "shape": "shape",
}
OPTIONS = sorted(set(FIELDS) | {"double", "params", "fft", "refine", "scan"})
REFINERS = ("icgn", "correlation", "none")


def _params_text(params):
    if params is None:
        return []
    if isinstance(params, str):
        return [params] if params else []
    return [f"{key}={value}" for key, value in dict(params).items()]


def _integer(key, value):
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)
    except TypeError:
        raise ArgumentError(f"{key}: expected an int, got {value!r}", "CLX_ERR_ARGUMENT") from None


def plan_fields(options, function="offsets"):
    """The clx_plan_options fields of offsets()'s keyword options."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r} "
                        f"(options: {', '.join(OPTIONS)})")
    fields = {FIELDS[key]: value for key, value in options.items() if key in FIELDS}
    for key in ("max_shift", "fit_size", "batch", "passes", "iterations", "fine_shift", "shape"):
        if key in options:
            fields[FIELDS[key]] = _integer(key, options[key])
    if options.get("prefilter", "") is None:
        fields["prefilter"] = "none"
    if options.get("double"):
        fields["use_double"] = 1
    params = _params_text(options.get("params"))
    if options.get("fft") is not None:
        params.append(f"fft={options['fft']}")
    if params:
        fields["params"] = ",".join(params)
    refine = options.get("refine")
    if refine is not None:
        if refine not in REFINERS:
            raise ArgumentError(f"refine: unknown refinement {refine!r} (icgn, correlation or none)",
                                "CLX_ERR_ARGUMENT")
        if refine == "none":
            if "iterations" in options:
                raise ArgumentError("refine='none' does no iterations: leave out iterations", "CLX_ERR_ARGUMENT")
            fields["refine"] = 0
        else:
            fields["refiner"] = refine
    return fields


def result_groups(fields):
    """Which column groups beyond seed mode's the rows have, as the command
    decides them (src/cli/output/row_format.c, row_groups_of), from the
    fields given over the library's defaults."""
    o = dict(_core.plan_defaults(), **fields)
    if o["mode"] != "accurate":
        return ()
    if o["refine"] == 0 or o["refiner"] != "icgn":
        return ("accurate",)
    return ("accurate", "icgn") + (("shape",) if o["shape"] == 1 else ())
