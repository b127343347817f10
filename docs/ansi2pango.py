#!/usr/bin/env python3
"""Turn a terminal capture with SGR escape codes (tmux capture-pane -e) into
Pango markup, which ImageMagick renders: convert pango:@FILE out.png."""
import html, re, sys

BASE = ["000000", "cd3131", "0dbc79", "e5e510", "2472c8", "bc3fbc", "11a8cd", "e5e5e5",
        "666666", "f14c4c", "23d18b", "f5f543", "3b8eea", "d670d6", "29b8db", "ffffff"]

def c256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        v = [0, 95, 135, 175, 215, 255]
        return "%02x%02x%02x" % (v[n // 36], v[n // 6 % 6], v[n % 6])
    g = 8 + (n - 232) * 10
    return "%02x%02x%02x" % (g, g, g)

FG, BG = "d4d4d4", "1e1e1e"
out, st = [], {"fg": None, "bg": None, "b": False, "rev": False}

def span(text):
    fg, bg = st["fg"] or FG, st["bg"]
    if st["rev"]:
        fg, bg = (st["bg"] or BG), (st["fg"] or FG)
    attrs = 'foreground="#%s"' % fg
    if bg:
        attrs += ' background="#%s"' % bg
    if st["b"]:
        attrs += ' weight="bold"'
    return "<span %s>%s</span>" % (attrs, html.escape(text, quote=False))

def sgr(params):
    ps = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(ps):
        p = ps[i]
        if p == 0:
            st.update(fg=None, bg=None, b=False, rev=False)
        elif p == 1:
            st["b"] = True
        elif p == 22:
            st["b"] = False
        elif p == 7:
            st["rev"] = True
        elif p == 27:
            st["rev"] = False
        elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
            st["fg" if p == 38 else "bg"] = c256(ps[i + 2]); i += 2
        elif 30 <= p <= 37: st["fg"] = BASE[p - 30]
        elif 90 <= p <= 97: st["fg"] = BASE[p - 90 + 8]
        elif 40 <= p <= 47: st["bg"] = BASE[p - 40]
        elif p == 39: st["fg"] = None
        elif p == 49: st["bg"] = None
        i += 1

for line in sys.stdin.read().rstrip("\n").split("\n"):
    pos = 0
    for m in re.finditer(r"\x1b\[([0-9;]*)m", line):
        if m.start() > pos:
            out.append(span(line[pos:m.start()]))
        sgr(m.group(1)); pos = m.end()
    rest = line[pos:]
    out.append(span(rest.ljust(80 - len(re.sub(r"\x1b\[[0-9;]*m", "", line)) + len(rest))))
    out.append("\n")
sys.stdout.write('<span font="DejaVu Sans Mono 11">' + "".join(out).rstrip("\n") + "</span>")
