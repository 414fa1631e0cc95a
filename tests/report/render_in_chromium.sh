#!/bin/sh
# Opens an HTML report in Debian's headless chromium, offline: fails unless the page loads,
# its inline script runs without errors (it marks <body data-ready="yes">), and a
# screenshot is written. Usage: render_in_chromium.sh REPORT.html OUT.png [DOM.html]
# (DOM.html: where to keep the page as the browser built it, for checks of its elements).
set -eu

if [ "$#" -ne 2 ] && [ "$#" -ne 3 ]; then
    echo "usage: $0 REPORT.html OUT.png [DOM.html]" >&2
    exit 2
fi
report=$1
shot=$2
dom=${3:-}
[ -r "$report" ] || { echo "$0: cannot read $report" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "$0: chromium is not installed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"

# Flags: no sandbox (containers), no GPU, and nothing that reaches the network by itself.
run_chromium() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --user-data-dir="$work/profile" \
        --enable-logging=stderr --v=0 "$@" "$url"
}

# 1. The DOM after scripts ran: the marker proves the inline script ran to its end.
if ! run_chromium --dump-dom > "$work/dom.html" 2> "$work/dom.log"; then
    echo "$0: chromium could not load $report:" >&2
    tail -20 "$work/dom.log" >&2
    exit 1
fi
if ! grep -q 'data-ready="yes"' "$work/dom.html"; then
    echo "$0: the page's script did not run (no data-ready marker)" >&2
    grep -E 'CONSOLE' "$work/dom.log" >&2 || tail -5 "$work/dom.log" >&2
    exit 1
fi
# Console messages from the page are logged as CONSOLE(line) "message"; chromium's own
# start-up noise is not.
if grep -E 'CONSOLE|Uncaught|Refused to' "$work/dom.log" > "$work/errors.txt"; then
    echo "$0: the page logged errors:" >&2
    cat "$work/errors.txt" >&2
    exit 1
fi

[ -z "$dom" ] || cp "$work/dom.html" "$dom"

# 2. The picture.
rm -f "$shot"
run_chromium --screenshot="$shot" --window-size=1280,2000 --hide-scrollbars \
    > "$work/shot.log" 2>&1 || true
if [ ! -s "$shot" ]; then
    echo "$0: no screenshot written:" >&2
    tail -20 "$work/shot.log" >&2
    exit 1
fi
echo "rendered $report into $shot"
