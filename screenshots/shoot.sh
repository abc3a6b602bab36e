#!/bin/sh
# shoot.sh FUSEDIFF — regenerate screenshots/*.txt and screenshots/*.png from real runs of the
# explorer on the bundled example traces (make screenshots).
#
# Each shot runs FUSEDIFF in a real terminal (tmux on its own socket, 120x40, xterm-256color),
# presses keys, and captures the pane twice: as plain text (NAME.txt) and with its colours as
# ANSI escapes, which aha turns into HTML and wkhtmltoimage into NAME.png (DejaVu Sans Mono).
# Missing tools (tmux, aha, wkhtmltopdf, fonts-dejavu-core) are installed with apt-get when
# run as root on Debian; otherwise the command to run is printed.
set -eu
FUSEDIFF=${1:?usage: shoot.sh FUSEDIFF}
case $FUSEDIFF in /*) ;; *) FUSEDIFF=$PWD/$FUSEDIFF ;; esac
cd "$(dirname "$0")/.."
out=screenshots

missing=""
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
command -v aha >/dev/null 2>&1 || missing="$missing aha"
command -v wkhtmltoimage >/dev/null 2>&1 || missing="$missing wkhtmltopdf"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || missing="$missing fonts-dejavu-core"
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "screenshots: installing$missing" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$missing >/dev/null; }
	else
		echo "screenshots: missing$missing; run: sudo apt-get install$missing" >&2
		exit 1
	fi
fi

sock="fusediff-shots-$$"
tmp=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || :; rm -rf "$tmp"' EXIT INT TERM
printf 'set -g default-terminal xterm-256color\nset -g status off\n' >"$tmp/tmux.conf"
T() { tmux -L "$sock" "$@"; }
wait_for() { # wait_for TEXT: poll the pane
	i=0
	while ! T capture-pane -p -t shot | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "screenshots: '$1' did not appear" >&2; T capture-pane -p -t shot >&2; exit 1; }
		sleep 0.1
	done
}

LLAMA="examples/llama8l_eager_sdpa.json.gz examples/llama8l_compiled_sdpa.json.gz"
SGLANG="examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_mi300x.json.gz examples/tracelens_sglang_dsr1-distill-llama8b_decode_bs16_b300.json.gz"

# shot NAME "TRACES" "KEYS" "TEXT": run, press KEYS (tmux key names), wait for TEXT, capture
shot() {
	T -f "$tmp/tmux.conf" new-session -d -s shot -x 120 -y 40 \
		"env -u NO_COLOR LC_ALL=C.UTF-8 $FUSEDIFF $2; sleep 30"
	wait_for "2 Layers"
	for k in $3; do
		T send-keys -t shot "$k"
		sleep 0.2
	done
	wait_for "$4"
	sleep 0.3
	T capture-pane -p -t shot | sed 's/[[:space:]]*$//' >"$out/$1.txt"
	T capture-pane -e -p -t shot >"$tmp/$1.ansi"
	T kill-session -t shot
	{
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
		printf 'body{margin:0;background:#1e1e1e;color:#d0d0d0}'
		printf 'pre{margin:8px;font-family:"DejaVu Sans Mono",monospace;font-size:14px;line-height:17px}'
		printf '</style></head><body><pre>'
		aha --no-header <"$tmp/$1.ansi"
		printf '</pre></body></html>\n'
	} >"$tmp/$1.html"
	QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp" wkhtmltoimage -q --quality 0 --width 1010 \
		"$tmp/$1.html" "$out/$1.png" 2>/dev/null
	echo "screenshots: $out/$1.txt, $out/$1.png"
}

shot overview "$LLAMA" "" "Largest kernel pairs of this part"
shot layers "$LLAMA" "2" "Largest differences"
shot fusion-evidence "$LLAMA" "4 o" "Evidence (Esc"
shot layer-pairs "$LLAMA" "2 Enter j" "A kernel"
shot mi300x-b300-layer "$SGLANG" "2 Enter" "A kernel"
shot mi300x-b300-summed "$SGLANG" "5" "Places"

# The export for Perfetto: no copy of the Perfetto UI exists here to screenshot, so the
# picture is drawn from the exported file (perfetto_picture.py): layer 1 of the first pass.
"$FUSEDIFF" --report perfetto --align layers -o "$tmp/perfetto.json.gz" $LLAMA
python3 "$out/perfetto_picture.py" "$tmp/perfetto.json.gz" "$tmp/perfetto.html" 1 1 1
QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp" wkhtmltoimage -q --quality 0 --width 1620 \
	"$tmp/perfetto.html" "$out/perfetto.png" 2>/dev/null
echo "screenshots: $out/perfetto.png"
exit 0
