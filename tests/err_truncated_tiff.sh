#!/bin/sh
# Error path: a TIFF cut off in the middle of its pixel data, or before its last rows.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
size=$(wc -c <"$S/image_0001.tif")
head -c $((size / 2)) "$S/image_0001.tif" >"$TMP/cut.tif"
expect_failure "truncated image" 1 "$TMP/cut.tif: .*(truncated|corrupt)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/cut.tif"
# Seed mode reads only the rows its windows cover (clx_image_load_rows_into).
# A file whose directory comes before its pixels (as some detectors write
# them), missing only its last 4 rows, which no window covers (the margin is
# 8), is still an error.
python3 - "$TMP/cut_end.tif" <<'EOF' || exit 99
import struct, sys
w, h = 160, 128
tags = [(256, 4, w), (257, 4, h), (258, 3, 16), (259, 3, 1), (262, 3, 1), (273, 4, 8 + 2 + 9 * 12 + 4),
        (277, 3, 1), (278, 4, h), (279, 4, w * h * 2)]
b = bytearray(b'II*\x00') + struct.pack('<IH', 8, len(tags))
for tag, kind, value in tags:
    b += struct.pack('<HHIHH', tag, kind, 1, value, 0) if kind == 3 else struct.pack('<HHII', tag, kind, 1, value)
b += struct.pack('<I', 0) + bytes((x * 7 + y * 3) % 256 for y in range(h) for x in range(w * 2))
open(sys.argv[1], 'wb').write(b[:len(b) - w * 2 * 4])
EOF
expect_failure "image cut in rows no window covers" 1 "$TMP/cut_end.tif: .*(truncated|corrupt)" \
    "$CLXCORR" offsets --mode seed --regions "$S/regions.txt" "$S/reference.tif" "$TMP/cut_end.tif"
head -c 100 "$S/reference.tif" >"$TMP/cutref.tif"
expect_failure "truncated reference" 1 "reference: $TMP/cutref.tif: .*(truncated|corrupt)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$TMP/cutref.tif" "$S/image_0001.tif"
finish
