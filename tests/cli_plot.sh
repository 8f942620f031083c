#!/bin/sh
# `clxcorr plot`: PNG pictures of a results file of the expected size (read
# from the PNG header), for the arrows (mean, one image, a chosen width),
# the series (all windows, one) and scan maps (--map, of hand-written
# scans: their size within what the text around the map can take, as the
# font sets it); TSV and JSON lines draw as CSV does, a scan's rows in any
# order; a bad results file fails with one error line naming the file and
# line, and leaves no picture behind, as does a map of a file that is not a
# scan or of an unknown column, or of a binary file; the command line is
# checked. The sample set's truth.csv has the columns of a results file, so
# most of this needs no device; the last part draws what `clxcorr offsets`
# wrote, with it --each (a picture per image, over one image or one per
# image) and --colour (a column's colours under the arrows), and what
# `clxcorr strain` writes over two grains, as CSV and as HDF5: --map and the
# tensor figure (--tensor), angles in degrees or radians.
. "$TESTS_SRCDIR/lib.sh"

"$CLXCORR_SAMPLES" --out "$TMP/set" --count 3 || exit 99
ref=$TMP/set/reference.tif
truth=$TMP/set/truth.csv

# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk, or nothing for a file
# that is not a PNG.
png_size() {
    [ "$(od -An -c -j1 -N3 "$1" 2>/dev/null | tr -d ' ')" = "PNG" ] || return
    od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", (($1 * 256 + $2) * 256 + $3) * 256 + $4,
                                                 (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

# expect_png NAME SIZE ARGS...: plot succeeds quietly and writes out.png of SIZE.
expect_png() {
    name=$1 size=$2
    shift 2
    rm -f "$TMP/out.png"
    if ! "$CLXCORR" plot -o "$TMP/out.png" "$@" >"$TMP/out" 2>"$TMP/err"; then
        fail "$name: exit status $?: $(cat "$TMP/err")"
    elif [ -s "$TMP/err" ] || [ -s "$TMP/out" ]; then
        fail "$name: printed $(cat "$TMP/out" "$TMP/err")"
    elif [ "$(png_size "$TMP/out.png")" != "$size" ]; then
        fail "$name: picture '$(png_size "$TMP/out.png")', expected $size"
    elif [ -e "$TMP/out.png.part" ]; then
        fail "$name: out.png.part left behind"
    else
        pass "$name: $size"
    fi
}

# drawn FILE: what the PNG holds, read back through the library (as grey:
# "min max mean"), when it is drawn on: text and frames in ink (FIGURE_INK,
# grey 25), the paper white, and a mean well below white, which the map's
# cells or the arrows' image make; nothing for a blank or unreadable picture.
drawn() {
    "$IMGTOOL" stats "$1" 2>/dev/null | awk '$4 == 8 && $5 <= 40 && $6 == 255 && $7 < 235 { print $5, $6, $7 }'
}

# same_drawing A B: both PNGs drawn on, their grey means within 0.5 of each
# other: the same cells, the title naming another file.
same_drawing() {
    a=$(drawn "$1") b=$(drawn "$2")
    [ -n "$a" ] && [ -n "$b" ] && echo "${a##* } ${b##* }" | awk '{ exit !($1 - $2 < 0.5 && $2 - $1 < 0.5) }'
}

# expect_png_within NAME MIN MAX ARGS...: as expect_png, the picture's size
# from MIN to MAX (WxH each), and drawn on.
expect_png_within() {
    name=$1 min=$2 max=$3
    shift 3
    rm -f "$TMP/out.png"
    if ! "$CLXCORR" plot -o "$TMP/out.png" "$@" >"$TMP/out" 2>"$TMP/err"; then
        fail "$name: exit status $?: $(cat "$TMP/err")"
        return
    fi
    size=$(png_size "$TMP/out.png")
    w=${size%x*} h=${size#*x}
    if [ -s "$TMP/err" ] || [ -s "$TMP/out" ]; then
        fail "$name: printed $(cat "$TMP/out" "$TMP/err")"
    elif [ -z "$size" ] || [ "$w" -lt "${min%x*}" ] || [ "$w" -gt "${max%x*}" ] || [ "$h" -lt "${min#*x}" ] \
        || [ "$h" -gt "${max#*x}" ]; then
        fail "$name: picture '$size', expected $min to $max"
    elif [ -z "$(drawn "$TMP/out.png")" ]; then
        fail "$name: a blank picture: $("$IMGTOOL" stats "$TMP/out.png" 2>&1)"
    else
        pass "$name: $size, grey $(drawn "$TMP/out.png")"
    fi
}

# The 900 x 900 reference drawn 900 wide: + 3 * 16 + 130 across, + 2 * 16 +
# 30 + 48 down (quiver.h).
expect_png "arrows, mean of the images" 1078x1010 "$truth" "$ref"
expect_png "arrows, the last image" 1078x1010 --image -1 "$truth" "$ref"
expect_png "arrows, 640 wide" 818x750 --width 640 "$truth" "$ref"
# The series: 1000 x 720 by default, width x 0.72 otherwise.
expect_png "series of every window" 1000x720 --series "$truth"
expect_png "series of window 12, reference ignored" 500x360 --series --region 12 --width 500 "$truth" "$ref"

# The same results as TSV and as JSON lines (keys in another order, the
# image last): the same picture, byte for byte (the title names the file, so
# each keeps the name truth.csv in its own folder).
mkdir -p "$TMP/tsv" "$TMP/jsonl"
tr , '\t' <"$truth" >"$TMP/tsv/truth.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
    { line = "{"; for (i = NF; i >= 1; i--) line = line sprintf("%s\"%s\": %s", i < NF ? ", " : "", name[i],
        i == 1 ? "\"" $i "\"" : $i); print line "}" }' "$truth" >"$TMP/jsonl/truth.csv"
"$CLXCORR" plot -o "$TMP/csv.png" "$truth" "$ref" || fail "arrows from CSV"
for form in tsv jsonl; do
    "$CLXCORR" plot -o "$TMP/$form.png" "$TMP/$form/truth.csv" "$ref" && cmp -s "$TMP/csv.png" "$TMP/$form.png" \
        && pass "arrows from $form: the CSV's picture" || fail "arrows from $form differ from the CSV's"
done

# Bad results files: exit status 1, the file and line named, no picture.
printf 'image,region,x,y,dy\nimage_0001.tif,0,69.5,69.5,1\n' >"$TMP/no-dx.csv"
sed '4s/,[^,]*$/,oops/' "$truth" >"$TMP/bad-dy.csv"
sed '6s/^\([^,]*,[^,]*\),.*/\1,1/' "$truth" >"$TMP/short.csv"
: >"$TMP/empty.csv"
for case in "no-dx.csv:1: no 'dx' column" "bad-dy.csv:4: dy 'oops' is not a number" \
    "short.csv:6: 3 fields, but the header has 6" "empty.csv: empty; expected a header line"; do
    file=${case%%:*}
    rm -f "$TMP/out.png"
    expect_failure "bad results file $file" 1 "^clxcorr: error: $TMP/${case}" \
        "$CLXCORR" plot -o "$TMP/out.png" "$TMP/$file" "$ref"
    [ ! -e "$TMP/out.png" ] && [ ! -e "$TMP/out.png.part" ] || fail "$file: a picture was written"
done
expect_failure "missing results file" 1 "^clxcorr: error: $TMP/none.csv: No such file or directory" \
    "$CLXCORR" plot -o "$TMP/out.png" "$TMP/none.csv" "$ref"
expect_failure "missing reference" 1 "^clxcorr: error: $TMP/none.tif: No such file" \
    "$CLXCORR" plot -o "$TMP/out.png" "$truth" "$TMP/none.tif"
# Windows outside the reference: results of another image.
"$CLXCORR_SAMPLES" --out "$TMP/small" --size 160x128 --count 1 --grid 3x2 --window 32x32 --margin 8 >/dev/null \
    || exit 99
expect_failure "results of another reference" 1 "window 2 is centred at \\(238.5, 69.5\\), outside .*160x128" \
    "$CLXCORR" plot -o "$TMP/out.png" "$truth" "$TMP/small/reference.tif"
expect_failure "image out of range" 1 "--image 3: .*truth.csv has 3 images \\(0 to 2, or -1 for the last\\)" \
    "$CLXCORR" plot --image 3 -o "$TMP/out.png" "$truth" "$ref"
expect_failure "window out of range" 1 "--region 50: .*truth.csv has windows 0 to 49" \
    "$CLXCORR" plot --series --region 50 -o "$TMP/out.png" "$truth"
expect_failure "unwritable picture" 1 "cannot write .*/no/dir.png: the directory .*/no does not exist" \
    "$CLXCORR" plot -o "$TMP/no/dir.png" "$truth" "$ref"

# The command line.
expect_failure "no output" 2 "plot needs -o OUT.png" "$CLXCORR" plot "$truth" "$ref"
expect_failure "no reference for arrows" 2 "no reference image given" "$CLXCORR" plot -o "$TMP/o.png" "$truth"
expect_failure "no results" 2 "no results file given" "$CLXCORR" plot -o "$TMP/o.png"
expect_failure "--image with --series" 2 "--image picks the image of the arrows" \
    "$CLXCORR" plot --series --image 1 -o "$TMP/o.png" "$truth"
expect_failure "--region without --series" 2 "--region picks the window of --series" \
    "$CLXCORR" plot --region 1 -o "$TMP/o.png" "$truth" "$ref"
expect_failure "bad --width" 2 "--width: '20' is not a whole number from 64 to 8192" \
    "$CLXCORR" plot --width 20 -o "$TMP/o.png" "$truth" "$ref"
expect_failure "unknown option" 2 "plot: unknown option '--frobnicate'" \
    "$CLXCORR" plot --frobnicate -o "$TMP/o.png" "$truth" "$ref"

# Scan maps (--map), from hand-written results of a scan of 3 x 2 points
# 1.5 um apart, two windows each: a nan row, a flagged row (left out), an
# outlier's row (kept), a point without rows.
cat >"$TMP/scan.csv" <<'EOF'
scan_row,scan_col,scan_x,scan_y,region,x,y,dx,dy,peak,flags
0,0,0.0,0.0,0,50.5,50.5,-1.0,0.5,1000,0
0,0,0.0,0.0,1,150.5,50.5,-1.0,0.5,1000,0
0,1,1.5,0.0,0,50.5,50.5,-0.5,0.25,1000,0
0,1,1.5,0.0,1,150.5,50.5,-0.3,0.25,1100,0
0,2,3.0,0.0,0,50.5,50.5,0.2,0.0,1000,0
0,2,3.0,0.0,1,150.5,50.5,9.0,0.0,20,2
1,0,0.0,1.5,0,50.5,50.5,0.5,-0.25,1000,0
1,0,0.0,1.5,1,150.5,50.5,0.7,-0.25,1000,8
1,1,1.5,1.5,0,50.5,50.5,1.0,-0.5,1000,0
1,1,1.5,1.5,1,150.5,50.5,nan,nan,nan,64
EOF
# One row per scan point and no positions (per-pattern strain), JSON lines.
cat >"$TMP/strain.jsonl" <<'EOF'
{"scan_row": 0, "scan_col": 0, "e11": 0.0012, "w3": -0.002, "residual": 0.01}
{"scan_row": 0, "scan_col": 1, "e11": -0.0004, "w3": 0.001, "residual": 0.02}
{"scan_row": 1, "scan_col": 1, "e11": 0.0002, "w3": null, "residual": 0.03}
EOF
# The maps: 3 x 2 cells of 213 px (639 x 426), 300 x 200 with --width 300,
# 2 x 2 cells of 320 px; around them the axes, the legend, the title and
# the caption, whose room the font sets.
expect_png_within "map of dx" 740x500 1000x700 --map dx "$TMP/scan.csv"
expect_png_within "map of window 1's peak" 740x500 1000x700 --map peak --region 1 "$TMP/scan.csv"
expect_png_within "map 300 wide, sequential, fixed range" 400x300 700x500 --map dx --scale sequential \
    --range -0.5,0.5 --width 300 "$TMP/scan.csv"
expect_png_within "map of strain, in scan rows and columns" 740x720 1000x900 --map e11 "$TMP/strain.jsonl"

# Angles: w3 drawn in degrees (its title says so, and the caption's limits
# are 57.3 times the radians'), or in radians with --radians.
"$CLXCORR" plot -v --map w3 -o "$TMP/w3.png" "$TMP/strain.jsonl" 2>"$TMP/deg" \
    && "$CLXCORR" plot -v --radians --map w3 -o "$TMP/w3-rad.png" "$TMP/strain.jsonl" 2>"$TMP/rad" \
    && grep -q ": w3 (°), 2 x 2 points, strain.jsonl;" "$TMP/deg" && grep -q ": w3 (rad), 2 x 2 points" "$TMP/rad" \
    && ! cmp -s "$TMP/w3.png" "$TMP/w3-rad.png" \
    && pass "--map w3 in degrees, --radians in radians" || fail "w3: $(cat "$TMP/deg" "$TMP/rad")"

# The same scan with its rows in another order, as TSV, as JSON lines: the
# same picture, byte for byte.
mkdir -p "$TMP/shuffled" "$TMP/scan-tsv" "$TMP/scan-jsonl"
{ head -1 "$TMP/scan.csv"; tail -n +2 "$TMP/scan.csv" | sort -r; } >"$TMP/shuffled/scan.csv"
tr , '\t' <"$TMP/scan.csv" >"$TMP/scan-tsv/scan.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
    { line = "{"; for (i = 1; i <= NF; i++) line = line sprintf("%s\"%s\": %s", i > 1 ? ", " : "", name[i],
        $i == "nan" ? "null" : $i); print line "}" }' "$TMP/scan.csv" >"$TMP/scan-jsonl/scan.csv"
"$CLXCORR" plot --map dx -o "$TMP/map.png" "$TMP/scan.csv" || fail "map of dx"
for form in shuffled scan-tsv scan-jsonl; do
    "$CLXCORR" plot --map dx -o "$TMP/$form.png" "$TMP/$form/scan.csv" && cmp -s "$TMP/map.png" "$TMP/$form.png" \
        && pass "map from $form: the same picture" || fail "map from $form differs"
done

# expect_no_map NAME STATUS PATTERN ARGS...: plot fails with one error line
# and leaves no picture, finished or not.
expect_no_map() {
    name=$1 want=$2 pattern=$3
    shift 3
    rm -f "$TMP/out.png" "$TMP/out.png.part"
    expect_failure "$name" "$want" "$pattern" "$CLXCORR" plot -o "$TMP/out.png" "$@"
    [ ! -e "$TMP/out.png" ] && [ ! -e "$TMP/out.png.part" ] || fail "$name: a picture was written"
}
printf 'scan_row,scan_col,dx\n0,0,0.5\n0,1,x\n' >"$TMP/bad-dx.csv"
printf 'scan_row,scan_col,region,dx\n0,0,0,1\n0,0,0,2\n' >"$TMP/twice.csv"
: >"$TMP/empty-scan.csv"
expect_no_map "--map of results of images" 1 \
    "^clxcorr: error: --map needs a results file of a scan: scan_row and scan_col columns; .*truth.csv has image, region, x, y, dx, dy$" \
    --map dx "$truth"
expect_no_map "--map of an unknown column" 1 \
    "^clxcorr: error: --map zncc: .*scan.csv has no such column; it has scan_row, scan_col, scan_x, scan_y, region, x, y, dx, dy, peak, flags$" \
    --map zncc "$TMP/scan.csv"
expect_no_map "--map, --region out of range" 1 "^clxcorr: error: --region 2: .*scan.csv has windows 0 to 1$" \
    --map dx --region 2 "$TMP/scan.csv"
expect_no_map "--map, --region of one row per point" 1 \
    "^clxcorr: error: --region 0: .*strain.jsonl has no region column \(one row per scan point\)$" \
    --map e11 --region 0 "$TMP/strain.jsonl"
expect_no_map "--map, a value that is not a number" 1 "^clxcorr: error: .*bad-dx.csv:3: dx 'x' is not a number$" \
    --map dx "$TMP/bad-dx.csv"
# A field with control bytes (a binary file's bytes in a text one): quoted
# with '?' for each, so that none reaches the terminal.
printf 'scan_row,scan_col,dx\n0,0,\001\033[2J\n' >"$TMP/control-dx.csv"
expect_no_map "--map, control bytes in a value" 1 "^clxcorr: error: .*control-dx.csv:2: dx '\?\?\[2J' is not a number$" \
    --map dx "$TMP/control-dx.csv"
expect_no_map "--map, a point twice" 1 \
    "^clxcorr: error: .*twice.csv:3: scan point \(row 0, column 0\), window 0 again \(first on line 2\)$" \
    --map dx "$TMP/twice.csv"
expect_no_map "--map, an empty file" 1 "^clxcorr: error: .*empty-scan.csv: empty; expected a header line" \
    --map dx "$TMP/empty-scan.csv"
expect_no_map "--map, a missing file" 1 "^clxcorr: error: .*none.csv: No such file or directory$" \
    --map dx "$TMP/none.csv"
expect_no_map "--map of a binary file" 1 \
    "^clxcorr: error: .*reference.tif: not a results file \(CSV, TSV, JSON lines or HDF5 as clxcorr writes them\)$" \
    --map dx "$ref"
expect_no_map "--tensor of offsets' results" 1 "^clxcorr: error: --tensor e11: .*scan.csv has no such column; it has " \
    --tensor "$TMP/scan.csv"
expect_failure "--map, unwritable picture" 1 "cannot write .*/no/dir.png: the directory .*/no does not exist" \
    "$CLXCORR" plot --map dx -o "$TMP/no/dir.png" "$TMP/scan.csv"
expect_no_map "--map with a reference" 2 "too many arguments: --map draws RESULTS.csv alone" \
    --map dx "$TMP/scan.csv" "$ref"
expect_no_map "--map with --series" 2 "--series and --map draw different pictures" --map dx --series "$TMP/scan.csv"
expect_no_map "--map with --image" 2 "--image picks the image of the arrows; --map draws" --map dx --image 0 \
    "$TMP/scan.csv"
expect_no_map "--scale without --map" 2 "--scale picks the colours of --map" --scale diverging "$truth" "$ref"
expect_no_map "--range without --map" 2 "--range sets the colour limits of --map" --range 0,1 --series "$truth"
expect_no_map "bad --range" 2 "--range: '1,0' is not LO,HI \(two numbers, LO below HI\)" --map dx --range 1,0 \
    "$TMP/scan.csv"
expect_no_map "bad --scale" 2 "--scale: unknown scale 'rainbow' \(diverging or sequential\)" --map dx \
    --scale rainbow "$TMP/scan.csv"
expect_no_map "--tensor with --map" 2 "--tensor, --series and --map draw different pictures" --tensor --map dx \
    "$TMP/scan.csv"
expect_no_map "--tensor with --range" 2 "--tensor draws the nine components .* not with .*--range" --tensor \
    --range 0,1 "$TMP/strain.jsonl"
expect_no_map "--tensor with a reference" 2 "too many arguments: --tensor draws RESULTS.csv alone" --tensor \
    "$TMP/strain.jsonl" "$ref"
expect_no_map "--radians without --map" 2 "--radians sets the unit of angles in --map and --tensor" --radians \
    "$truth" "$ref"
expect_no_map "--arrow-step with --series" 2 "--arrow-step picks the arrows drawn; --series, --map and --tensor" \
    --arrow-step 2 --series "$truth"
expect_no_map "bad --arrow-step" 2 "--arrow-step: '0' is not a whole number from 1 to 1000" --arrow-step 0 \
    "$truth" "$ref"

# What `clxcorr offsets` writes, quoted names included, draws as well.
need_device
cp "$TMP/set/image_0001.tif" "$TMP/set/a,b.tif"
"$CLXCORR" offsets -q --regions "$TMP/set/regions.txt" -o "$TMP/offsets.csv" "$ref" "$TMP/set/a,b.tif" \
    "$TMP/set"/image_000[23].tif || fail "clxcorr offsets failed"
grep -q '^"' "$TMP/offsets.csv" && pass "offsets quoted the name with a comma" || fail "no quoted name"
expect_png "arrows from offsets' CSV" 1078x1010 --image 0 "$TMP/offsets.csv" "$ref"
expect_png "series from offsets' CSV" 1000x720 --series "$TMP/offsets.csv"

# --each: a picture per image, over the one image given or one per image;
# --colour: a column's colours under the arrows (speed made from dx, dy).
"$CLXCORR" offsets -q --regions "$TMP/set/regions.txt" -o "$TMP/series.csv" "$ref" "$TMP/set"/image_000[123].tif \
    || fail "offsets for --each"
rm -f "$TMP"/each*.png
"$CLXCORR" plot --each --colour speed -o "$TMP/each.png" "$TMP/series.csv" "$ref" 2>"$TMP/err" \
    && [ "$(ls "$TMP"/each*.png | wc -l)" -eq 3 ] \
    && [ "$(png_size "$TMP/each_0001.png") $(png_size "$TMP/each_0003.png")" = "1078x1010 1078x1010" ] \
    && pass "--each --colour speed: each_0001.png ... each_0003.png of 1078x1010" \
    || fail "--each: $(ls "$TMP"/each*.png) $(cat "$TMP/err")"
"$CLXCORR" plot --each --colour zncc -o "$TMP/own.png" "$TMP/series.csv" "$TMP/set"/image_000[123].tif \
    && [ "$(ls "$TMP"/own_*.png | wc -l)" -eq 3 ] && pass "--each over one image per image of the file" \
    || fail "--each with an image per image"
"$CLXCORR" offsets -q --regions "$TMP/set/regions.txt" -o "$TMP/one.csv" "$ref" "$TMP/set/image_0002.tif" \
    && "$CLXCORR" plot --each -o "$TMP/single.png" "$TMP/one.csv" "$ref" && [ -f "$TMP/single.png" ] \
    && pass "--each over a file of one image: single.png" || fail "--each, one image: $(ls "$TMP"/single*)"
expect_failure "--each with two images for three" 1 "--each: .* has 3 images; give one image to draw under them all, or one for each \(got 2\)" \
    "$CLXCORR" plot --each -o "$TMP/x.png" "$TMP/series.csv" "$ref" "$ref"
expect_failure "--colour of a column the file lacks" 1 "no 'e11' column to colour by" \
    "$CLXCORR" plot --colour e11 -o "$TMP/x.png" "$TMP/series.csv" "$ref"
expect_failure "--each with --series" 2 "--each draws the arrows of every image" \
    "$CLXCORR" plot --each --series -o "$TMP/x.png" "$TMP/series.csv"
# peak_ratio as offsets writes it where a window's second peak is 0 (inf),
# and nan: --colour and --map read them (inf at the scale's top, nan no
# value); something else in the column is named by the column.
set_ratio() {
    awk -F, -v row="$1" -v value="$2" 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "peak_ratio") c = i }
        NR == row && c { $c = value } { print }'
}
set_ratio 2 inf <"$TMP/series.csv" | set_ratio 3 nan >"$TMP/ratio.csv"
[ "$(cut -d, -f10 "$TMP/ratio.csv" | sed -n 1,3p | tr '\n' ' ')" = "peak_ratio inf nan " ] \
    || fail "ratio.csv: not written as meant: $(sed -n 1,3p "$TMP/ratio.csv")"
expect_png "--colour peak_ratio with inf and nan" 1078x1010 --colour peak_ratio "$TMP/ratio.csv" "$ref"
expect_png "--image 0 --colour peak_ratio with inf and nan" 1078x1010 --image 0 --colour peak_ratio "$TMP/ratio.csv" "$ref"
set_ratio 2 many <"$TMP/series.csv" >"$TMP/bad-ratio.csv"
expect_failure "--colour peak_ratio, a word in it" 1 "bad-ratio.csv:2: peak_ratio 'many' is not a number" \
    "$CLXCORR" plot --colour peak_ratio -o "$TMP/x.png" "$TMP/bad-ratio.csv" "$ref"

# A map of what offsets writes over a scan's pattern file (the fixtures of
# cli_pattern_files.sh), where this clxcorr reads them (HDF5) and names the
# scan points in its rows.
if "$CLXCORR" --version | grep -q 'features:.* hdf5'; then
    E=$TMP/ebsd
    "$CLXCORR_SAMPLES" --out "$E" --size 96x80 --count 6 --grid 3x2 --window 24x24 --margin 8 --max-shift 2 \
        >/dev/null || exit 99
    "$CLXCORR" offsets -q --regions "$E/regions.txt" -o "$TMP/scan-offsets.csv" "$E/reference.tif" \
        "$TESTS_SRCDIR/data/ebsd/patterns.h5" || fail "offsets over patterns.h5"
    if head -1 "$TMP/scan-offsets.csv" | grep -q '^scan_row,scan_col,scan_x,scan_y,'; then
        # 3 x 2 points 1.5 x 2 um apart: cells of 213 x 284 px, whatever the
        # values make of the legend and caption around them.
        "$CLXCORR" plot -v --map dx -o "$TMP/scan-map.png" "$TMP/scan-offsets.csv" 2>"$TMP/err" \
            && grep -q "dx (px), mean over 6 windows, 3 x 2 points, scan-offsets.csv" "$TMP/err" \
            && [ "$(png_size "$TMP/scan-map.png" | cut -dx -f1)" -ge 639 ] \
            && pass "map of offsets over a pattern file: $(png_size "$TMP/scan-map.png")" \
            || fail "map of offsets over a pattern file: $(cat "$TMP/err")"
    else
        echo "offsets does not name the scan points in its rows: its map is not checked"
    fi
    # The same as HDF5 (--format h5, datasets shaped as the scan): the same
    # points drawn, a picture of the same size and shades.
    "$CLXCORR" offsets -q --format h5 --regions "$E/regions.txt" -o "$TMP/scan-offsets.h5" "$E/reference.tif" \
        "$TESTS_SRCDIR/data/ebsd/patterns.h5" || fail "offsets --format h5 over patterns.h5"
    "$CLXCORR" plot -v --map dx -o "$TMP/scan-map-h5.png" "$TMP/scan-offsets.h5" 2>"$TMP/err" \
        && grep -q "dx (px), mean over 6 windows, 3 x 2 points, scan-offsets.h5; 36 of 36 rows drawn" "$TMP/err" \
        && [ "$(png_size "$TMP/scan-map-h5.png")" = "$(png_size "$TMP/scan-map.png")" ] \
        && same_drawing "$TMP/scan-map-h5.png" "$TMP/scan-map.png" \
        && pass "map of offsets' HDF5 output: $(png_size "$TMP/scan-map-h5.png")" \
        || fail "map of offsets' HDF5 output: $(cat "$TMP/err"; "$IMGTOOL" stats "$TMP/scan-map-h5.png" 2>&1)"

    # strain over two grains (kikuchipy's fixture), as CSV and as HDF5 (its
    # rows grain by grain: a list of patterns, each naming its point).
    G="--grains auto --orientations $TESTS_SRCDIR/data/hrebsd/grains.ang --min-grain 2 --grid 7x5 --window 48x48 --margin 16"
    # shellcheck disable=SC2086
    "$CLXCORR" strain -q $G -o "$TMP/g.csv" "$TESTS_SRCDIR/data/hrebsd/grains.h5" \
        && "$CLXCORR" strain -q $G --format h5 -o "$TMP/g.h5" "$TESTS_SRCDIR/data/hrebsd/grains.h5" \
        || fail "strain over grains.h5"
    # --map of strain's own HDF5 output: what its CSV draws.
    for form in csv h5; do
        "$CLXCORR" plot -v --map e11 -o "$TMP/e11-$form.png" "$TMP/g.$form" 2>"$TMP/e11-$form" \
            || fail "--map e11 of g.$form: $(cat "$TMP/e11-$form")"
    done
    sed 's/g\.csv/g.FILE/; s/e11-csv/e11-FILE/' "$TMP/e11-csv" >"$TMP/e11-csv.said"
    sed 's/g\.h5/g.FILE/; s/e11-h5/e11-FILE/' "$TMP/e11-h5" >"$TMP/e11-h5.said"
    grep -q "e11, 4 x 3 points, g.FILE; 12 of 12 rows drawn, 0 points without a value" "$TMP/e11-csv.said" \
        && cmp -s "$TMP/e11-csv.said" "$TMP/e11-h5.said" \
        && [ "$(png_size "$TMP/e11-h5.png")" = "$(png_size "$TMP/e11-csv.png")" ] \
        && same_drawing "$TMP/e11-h5.png" "$TMP/e11-csv.png" \
        && pass "--map e11 of strain's HDF5 output: as of its CSV ($(png_size "$TMP/e11-h5.png"))" \
        || fail "--map e11 of strain's HDF5 output: $(cat "$TMP/e11-csv" "$TMP/e11-h5")"
    # The tensor figure, with the grains' boundary: each row's label and
    # limits (over its three components) the same from both files; the
    # normal strains to 1.03e-3 (e11's), the rotations in degrees (0.80,
    # w2's), or in radians (0.0139).
    for form in csv h5; do
        "$CLXCORR" plot -v --tensor -o "$TMP/tensor-$form.png" "$TMP/g.$form" 2>"$TMP/tensor-$form" \
            || fail "--tensor of g.$form: $(cat "$TMP/tensor-$form")"
        grep '^clxcorr:   ' "$TMP/tensor-$form" >"$TMP/panels-$form"
    done
    [ "$(wc -l <"$TMP/panels-csv")" -eq 3 ] && cmp -s "$TMP/panels-csv" "$TMP/panels-h5" \
        && grep -q "^clxcorr:   normal strain (×10⁻³): colours -0.0010[0-9]* to 0.0010" "$TMP/panels-csv" \
        && grep -q "^clxcorr:   shear strain (×10⁻⁴): colours -0.000[5-9]" "$TMP/panels-csv" \
        && grep -q "^clxcorr:   rotation (°): colours -0.79[0-9]* to 0.79" "$TMP/panels-csv" \
        && [ "$(png_size "$TMP/tensor-h5.png")" = "$(png_size "$TMP/tensor-csv.png")" ] \
        && same_drawing "$TMP/tensor-h5.png" "$TMP/tensor-csv.png" \
        && pass "--tensor of strain's CSV and HDF5: $(png_size "$TMP/tensor-csv.png"), the same three rows" \
        || fail "--tensor: $(cat "$TMP/tensor-csv" "$TMP/tensor-h5")"
    "$CLXCORR" plot -v --tensor --radians -o "$TMP/tensor-rad.png" "$TMP/g.csv" 2>"$TMP/tensor-rad" \
        && grep -q "^clxcorr:   rotation (rad): colours -0.013[0-9]* to 0.013" "$TMP/tensor-rad" \
        && grep -q "^clxcorr:   normal strain (×10⁻³): colours -0.0010" "$TMP/tensor-rad" \
        && ! cmp -s "$TMP/tensor-rad.png" "$TMP/tensor-csv.png" \
        && pass "--tensor --radians: $(grep '^clxcorr:   rotation' "$TMP/tensor-rad" | tr -s ' ' | cut -d' ' -f2-)" \
        || fail "--tensor --radians: $(cat "$TMP/tensor-rad")"
fi
finish
