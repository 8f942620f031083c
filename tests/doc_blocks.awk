# doc_blocks.awk - the code blocks of a Markdown page, for tests/docs.sh.
# Writes each ```sh and ```python block to out/NNN.LANG and prints one line
# per block: "NNN LANG PAGE:LINE", followed by "not run: REASON" when the
# line before the fence is <!-- not run: REASON --> (or "not run:" alone when
# the reason is missing, which docs.sh refuses). A ```text block right after
# a runnable one (blank lines between at most) is what that block prints, as
# the page quotes it: out/NNN.expected, which docs.sh checks
# (tests/doc_output.awk). Blocks of other languages (CSV, a row's layout)
# are not code to run. An unclosed fence is an error.
# Variables: out (directory), page (name to report).

function flush_marker(line) {
    marker = ""
    if (line ~ /^<!-- *not run:.*-->[ \t]*$/) {
        marker = line
        sub(/^<!-- */, "", marker)
        sub(/ *-->[ \t]*$/, "", marker)
    }
}

BEGIN { n = 0; inside = 0; marker = ""; after = 0 }

inside && /^```[ \t]*$/ {
    inside = 0
    if (file != "")
        close(file)
    after = runnable ? n : 0
    next
}
inside {
    if (file != "")
        print > file
    next
}
/^```/ {
    lang = $0
    sub(/^```[ \t]*/, "", lang)
    sub(/[ \t].*$/, "", lang)
    inside = 1
    start = FNR
    file = ""
    runnable = 0
    if (lang == "text" && after > 0 && marker == "") {
        file = sprintf("%s/%03d.expected", out, after)
        printf "" > file
    } else if (lang == "sh" || lang == "bash" || lang == "python") {
        runnable = (marker == "")
        if (lang == "bash")
            lang = "sh"
        n++
        file = sprintf("%s/%03d.%s", out, n, lang)
        printf "" > file
        printf "%03d %s %s:%d%s\n", n, lang, page, FNR, marker == "" ? "" : " " marker
    }
    marker = ""
    after = 0
    next
}
/^[ \t]*$/ { next }
{ after = 0; flush_marker($0) }

END {
    if (inside) {
        printf "%s:%d: a code block that never closes\n", page, start
        exit 1
    }
}
