#!/bin/sh
# Output that never destroys (clx_output): a device node, a FIFO or
# /dev/stdout named by -o is written as it is, never replaced by a regular
# file; a full device is an error; a symbolic link is kept and the file it
# names written; a replaced file keeps its permissions; and an -o (or
# --meta, --quiver) that names an input is refused before any work, the
# input untouched.
. "$TESTS_SRCDIR/lib.sh"
need_device
make_small_set "$TMP/set" 3
S=$TMP/set
run() {
    "$CLXCORR" offsets --mode seed --method fft --regions "$S/regions.txt" "$@"
}
run "$S/reference.tif" "$S"/image_000*.tif >"$TMP/want.csv" || fail "the run to standard output"

# Device nodes of our own (as root), so that a regression cannot replace
# the machine's /dev/null or /dev/full.
if mknod "$TMP/null" c 1 3 2>/dev/null && mknod "$TMP/full" c 1 7 2>/dev/null; then
    run -o "$TMP/null" "$S/reference.tif" "$S"/image_000*.tif 2>"$TMP/err"
    status=$?
    [ "$status" -eq 0 ] && [ -c "$TMP/null" ] && [ ! -e "$TMP/null.part" ] \
        && pass "-o onto a null device: exit 0, still a character device" \
        || fail "-o onto a null device: exit status $status, $(ls -l "$TMP/null"*): $(cat "$TMP/err")"
    expect_failure "-o onto a full device" 1 "writing .*full: No space left on device" \
        run -o "$TMP/full" "$S/reference.tif" "$S"/image_000*.tif
    [ -c "$TMP/full" ] && [ ! -e "$TMP/full.part" ] && pass "the full device is still a character device" \
        || fail "the full device was replaced: $(ls -l "$TMP/full"*)"
    expect_failure "--format h5 onto a device" 1 "full is a character device: this output is seeked in" \
        run --format h5 -o "$TMP/full" "$S/reference.tif" "$S"/image_000*.tif
    [ -c "$TMP/full" ] || fail "--format h5 replaced the device"
    "$CLXCORR" plot -o "$TMP/full" "$S/truth.csv" "$S/reference.tif" >/dev/null 2>"$TMP/err"
    [ $? -eq 1 ] && [ -c "$TMP/full" ] && pass "plot onto a full device: an error, the node kept" \
        || fail "plot onto a full device: $(ls -l "$TMP/full"): $(cat "$TMP/err")"
else
    echo "# not root (mknod refused): the device-node checks are skipped"
fi

# A FIFO with a reader: the reader gets the rows, the FIFO stays.
mkfifo "$TMP/fifo" || exit 99
cat "$TMP/fifo" >"$TMP/got.csv" &
reader=$!
run -o "$TMP/fifo" "$S/reference.tif" "$S"/image_000*.tif 2>"$TMP/err"
status=$?
wait $reader
[ "$status" -eq 0 ] && [ -p "$TMP/fifo" ] && cmp -s "$TMP/got.csv" "$TMP/want.csv" \
    && pass "-o onto a FIFO: the reader got every row, the FIFO is still one" \
    || fail "-o onto a FIFO: exit status $status, $(ls -l "$TMP/fifo"), $(cat "$TMP/err")"

# /dev/stdout: written through the shell's own descriptor, appending.
echo "before" >"$TMP/log"
run -o /dev/stdout "$S/reference.tif" "$S"/image_000*.tif >>"$TMP/log" 2>"$TMP/err"
{ echo before; cat "$TMP/want.csv"; } | cmp -s - "$TMP/log" && [ -L /dev/stdout ] \
    && pass "-o /dev/stdout appends to the shell's file" || fail "-o /dev/stdout: $(head -3 "$TMP/log") $(cat "$TMP/err")"

# A symbolic link is kept; the file it names gets the rows, with its mode.
echo old >"$TMP/real.csv"
chmod 640 "$TMP/real.csv"
ln -s real.csv "$TMP/link.csv"
run -o "$TMP/link.csv" "$S/reference.tif" "$S"/image_000*.tif 2>"$TMP/err"
[ -L "$TMP/link.csv" ] && cmp -s "$TMP/real.csv" "$TMP/want.csv" && [ "$(stat -c %a "$TMP/real.csv")" = 640 ] \
    && pass "-o through a symbolic link: the link kept, its file written, mode 640 kept" \
    || fail "-o through a link: $(ls -l "$TMP/link.csv" "$TMP/real.csv") $(cat "$TMP/err")"

# -o onto an input: refused before any work, the input untouched (also
# through a hard link, a symbolic link and another spelling of its name).
cp -r "$S" "$TMP/in"
I=$TMP/in
ln "$I/image_0002.tif" "$TMP/hard.tif"
ln -s "$I/image_0003.tif" "$TMP/soft.tif"
sum=$(cat "$I"/* | cksum)
expect_failure "-o is an image" 1 "-o .*image_0001.tif would overwrite the input .*image_0001.tif" \
    run -o "$I/image_0001.tif" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "-o is the reference" 1 "would overwrite the input .*reference.tif" \
    run -o "$I/./reference.tif" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "-o is a hard link to an image" 1 "-o .*hard.tif would overwrite the input .*image_0002.tif" \
    run -o "$TMP/hard.tif" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "-o is a symbolic link to an image" 1 "would overwrite the input .*image_0003.tif" \
    run -o "$TMP/soft.tif" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "-o is the windows file" 1 "would overwrite the input .*regions.txt" \
    "$CLXCORR" offsets --regions "$I/regions.txt" -o "$I/regions.txt" "$I/reference.tif" "$I/image_0001.tif"
expect_failure "--meta is an image" 1 "--meta .*image_0001.tif would overwrite the input" \
    run --meta "$I/image_0001.tif" -o "$TMP/m.csv" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "--quiver is -o" 1 "-o .*q.csv and --quiver .*q.csv name one file" \
    run --quiver "$TMP/q.csv" -o "$TMP/q.csv" "$I/reference.tif" "$I"/image_000*.tif
expect_failure "plot onto its results file (a usage error there)" 2 "-o .*truth.csv would overwrite the input" \
    "$CLXCORR" plot -o "$I/truth.csv" "$I/truth.csv" "$I/reference.tif"
expect_failure "correlate onto an image" 1 "would overwrite the input .*image_0001.tif" \
    "$CLXCORR" correlate --regions "$I/regions.txt" -o "$I/image_0001.tif" "$I/reference.tif" "$I/image_0001.tif"
[ "$(cat "$I"/* | cksum)" = "$sum" ] && [ -z "$(ls "$I" | grep -v '^\(image_000[123].tif\|reference.tif\|regions.txt\|truth.csv\)$')" ] \
    && pass "every input untouched, nothing new beside them" || fail "an input changed: $(ls -l "$I")"
finish
