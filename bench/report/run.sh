#!/usr/bin/env bash
# report.html benchmark (release): generation of a 20,000-test report with a full trends context
# (bench-report), then its render in headless Chromium, side by side with references in the same run.
#
# How the render is measured: wall time of one headless Chromium process that loads the page and
#   --screenshot   parses it, styles, lays out and paints the first 1280×2000 viewport, writes a PNG;
#   --dump-dom     parses it, runs to the load event, prints the DOM;
# minus the same command on an empty page (browser start and stop), median of 3 runs each.
# References: a plain page of the same size in bytes (one table of the same 20,000 rows, no CSS or
# SVG, everything laid out), and libxml2's HTML parser (xmllint --html) on report.html.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product bench-report 2>&1 | grep -E "error:" || true
dir=$(mktemp -d -t xcfleet-bench-report-XXXX)
trap 'rm -rf "$dir"' EXIT
.build/release/bench-report "$dir"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "chromium not found (apt-get install -y chromium): render not measured"; exit 0; }
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n' > "$dir/empty.html"

ms() { # median wall time in ms of 3 runs of a command
  local times=()
  for _ in 1 2 3; do
    local s; s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}
browse() { "$chromium" --headless --disable-gpu --no-sandbox --disable-dev-shm-usage --no-first-run --user-data-dir="$dir/profile" "$@"; }
sec() { awk -v a="$1" 'BEGIN { printf "%.3f", a / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

browse --dump-dom "file://$dir/empty.html" >/dev/null 2>&1 || true # warm the profile
for page in empty report reference; do
  eval "shot_$page=$(ms browse --screenshot="$dir/$page.png" --window-size=1280,2000 "file://$dir/$page.html")"
  eval "dom_$page=$(ms browse --dump-dom "file://$dir/$page.html")"
done
shot=$((shot_report - shot_empty)); dom=$((dom_report - dom_empty))
shot_ref=$((shot_reference - shot_empty)); dom_ref=$((dom_reference - dom_empty))
echo "headless Chromium $("$chromium" --version 2>/dev/null | awk '{print $2}'), median of 3, minus an empty page (start/stop: screenshot $(sec "$shot_empty") s, dump-dom $(sec "$dom_empty") s):"
echo "  screenshot (parse+layout+paint)  $(sec "$shot") s  budget 3 s   ×$(ratio "$shot" "$shot_ref") of a plain page of the same size ($(sec "$shot_ref") s)   with start/stop $(sec "$shot_report") s"
echo "  dump-dom   (parse+load)          $(sec "$dom") s              ×$(ratio "$dom" "$dom_ref") of the plain page ($(sec "$dom_ref") s)"
if command -v xmllint >/dev/null; then
  x=$(ms xmllint --html --noout "$dir/report.html")
  echo "  reference: xmllint --html parse of report.html $(sec "$x") s (Chromium dump-dom = ×$(ratio "$dom" "$x"))"
fi
