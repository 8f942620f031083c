#!/bin/sh
# Error path: a TIFF whose directory (IFD) is overwritten with garbage.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 1
S=$TMP/set
cp "$S/image_0001.tif" "$TMP/bad.tif"
# The first IFD's offset is at byte 4; point it past the end of the file.
printf '\377\377\377\177' | dd of="$TMP/bad.tif" bs=1 seek=4 conv=notrunc 2>/dev/null
expect_failure "IFD offset past the end" 1 "$TMP/bad.tif: .*(corrupt|truncated)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/bad.tif"
cp "$S/image_0001.tif" "$TMP/bad2.tif"
printf 'II*\000\010\000\000\000\377\377' | dd of="$TMP/bad2.tif" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_failure "garbage IFD" 1 "$TMP/bad2.tif: .*(corrupt|truncated)" \
    "$CLXCORR" offsets --regions "$S/regions.txt" "$S/reference.tif" "$TMP/bad2.tif"
finish
