#!/usr/bin/env bash
# Renders docs/find.png (deja find in an 80x24 tmux pane) and
# docs/recall.png (deja recall printed in a 100x24 pane) on a small demo
# history, captured with their colours and drawn with ImageMagick.
# Needs tmux, ImageMagick (with Pango) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'tmux -S "$work/sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/deja" ./cmd/deja
mkdir -p "$work/home/src/shop"
cp docs/demo.aider.chat.history.md "$work/home/src/shop/.aider.chat.history.md"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data DEJA_EMBED_PROVIDER=builtin DEJA_SERVE_AUTOSTART=false
"$work/deja" index "$work/home/src/shop" >/dev/null 2>&1
tmux -S "$work/sock" -f /dev/null new-session -d -x 80 -y 24 -s shot \
  "env HOME=$HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_DATA_HOME=$XDG_DATA_HOME DEJA_EMBED_PROVIDER=builtin TERM=xterm-256color $work/deja find"
sleep 1
tmux -S "$work/sock" send-keys -t shot -l "tenant query"
sleep 1.5
tmux -S "$work/sock" capture-pane -e -p -t shot > "$work/screen.ansi"
python3 docs/ansi2pango.py < "$work/screen.ansi" > "$work/screen.pango"
convert -background '#1e1e1e' -bordercolor '#1e1e1e' -border 12 "pango:$(cat "$work/screen.pango")" docs/find.png
echo "wrote docs/find.png"

tmux -S "$work/sock" new-session -d -x 100 -y 24 -s recall \
  "env HOME=$HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_DATA_HOME=$XDG_DATA_HOME DEJA_EMBED_PROVIDER=builtin TERM=xterm-256color sh -c 'printf \"\$ deja recall --limit 3 \\\"tenant query\\\"\\n\"; $work/deja recall --limit 3 \"tenant query\"; sleep 30'"
sleep 2
tmux -S "$work/sock" capture-pane -e -p -t recall > "$work/recall.ansi"
python3 docs/ansi2pango.py < "$work/recall.ansi" > "$work/recall.pango"
convert -background '#1e1e1e' -bordercolor '#1e1e1e' -border 12 "pango:$(cat "$work/recall.pango")" docs/recall.png
echo "wrote docs/recall.png"
