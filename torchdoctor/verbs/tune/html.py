"""A self-contained HTML page of a tune result: per workload an inline SVG chart of the
speedup (with its range) and the drift of every setting, the table, the advice.

No scripts, no external resources (styles inline, no fonts or images fetched), and
every piece of text from the run (a model name, an error message) escaped.
"""

import math
from html import escape
from typing import Any, Dict, List

from .numbers import FASTER, SAME, SLOWER, drift_value, fmt_drift
from .render import HEAD, STATUS_WORDS, header_lines, knowledge, legend, noise_line, rows, verdict_text

ROW_H = 24
LABEL_W = 300
SPEED_W = 320
DRIFT_W = 260
GAP = 30
TOP = 40
COLORS = {FASTER: "#2e7d32", SLOWER: "#c62828", SAME: "#8d8d8d", "few": "#b0a060", "ref": "#1565c0",
          "none": "#d9d9d9", "drift_ok": "#5c6bc0", "drift_bad": "#c62828"}
CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 6px} h2{font-size:18px;margin:28px 0 6px} p.meta{margin:2px 0;color:#444}
table{border-collapse:collapse;margin:10px 0;font-size:13px} td,th{border:1px solid #ccc;padding:3px 7px;text-align:left}
th{background:#f3f3f3} pre{background:#f6f8fa;padding:8px 10px;border:1px solid #ddd;overflow:auto}
.faster{color:#2e7d32} .slower{color:#c62828} .differ{color:#c62828;font-weight:600} ul{margin:4px 0 8px}
svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif} .note{color:#555;font-size:13px}
.finding-error{color:#c62828} .finding-warning{color:#a15c00}
"""


SPEED_CLAMP = (1 / 64.0, 64.0)
# Text widths in em, generously (the page names no font: whatever sans-serif the browser has),
# for placing labels where they fit: narrow glyphs, wide ones, the rest.
NARROW, WIDE = set("iIl.,:;'|!()[] "), set("mwMW@%")
LABEL_FONT, VALUE_FONT = 12, 11


def text_width(text: str, size: float) -> float:
    """An upper estimate of how wide `text` is at font size `size`, in px."""
    return size * sum(0.34 if c in NARROW else 0.95 if c in WIDE else 0.64 for c in text)


def fit(text: str, size: float, room: float) -> str:
    """`text`, cut with an ellipsis until it fits in `room` px."""
    if text_width(text, size) <= room:
        return text
    while text and text_width(text + "\u2026", size) > room:
        text = text[:-1]
    return text.rstrip() + "\u2026"


DRIFT_PAD = text_width("1.0e-10", VALUE_FONT) + 10  # right of the drift panel: the longest drift label


def _x(v: float) -> str:
    return ("%.2fx" % v) if v >= 0.01 else ("%.1ex" % v)


def e(text: Any) -> str:
    return escape(str(text), quote=True)


def _speed_x(v: float, lo: float, hi: float) -> float:
    """x of speedup v on a log2 axis from lo to hi inside the speed panel."""
    v = min(max(v, lo), hi)
    return LABEL_W + SPEED_W * (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))


DRIFT_LO, DRIFT_HI = 1e-10, 1.0


def _drift_x(d: float) -> float:
    x0 = LABEL_W + SPEED_W + GAP
    if d <= DRIFT_LO:
        return x0
    d = min(d, DRIFT_HI)
    return x0 + DRIFT_W * (math.log10(d) - math.log10(DRIFT_LO)) / (math.log10(DRIFT_HI) - math.log10(DRIFT_LO))


def _num(x):
    if isinstance(x, (int, float)):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("inf")


def value_place(text: str, left: float, right: float, bar1: float, bar2: float):
    """(x, anchor, white) for a speed value: right of its bar and range where it fits in the
    speed panel, else left of them (clear of the row names), else inside the bar in white,
    else over the gap between the panels."""
    w = text_width(text, VALUE_FONT)
    if right + 5 + w <= LABEL_W + SPEED_W:
        return right + 5, "start", False
    if left - 5 - w >= LABEL_W + 2:
        return left - 5, "end", False
    if bar2 - bar1 >= w + 8:
        return bar1 + 4, "start", True
    return min(right + 5, LABEL_W + SPEED_W + GAP - 4 - w), "start", False


def chart(w: Dict[str, Any], tolerance: float) -> str:
    settings = w.get("settings") or []
    values = [s["speedup"][k] for s in settings if s.get("speedup") for k in ("low", "high", "value")]
    lo = max(SPEED_CLAMP[0], min([0.5] + [v for v in values if v > 0]))
    hi = min(SPEED_CLAMP[1], max([2.0] + values))
    lo, hi = 2 ** math.floor(math.log2(lo)), 2 ** math.ceil(math.log2(hi))
    height = TOP + ROW_H * len(settings) + 30
    width = int(LABEL_W + SPEED_W + GAP + DRIFT_W + DRIFT_PAD)
    p: List[str] = ['<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" '
                    'role="img" aria-label="speedup and drift per setting for %s">' % (width, height, width, height,
                                                                                       e(w["name"]))]
    p.append('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height))
    p.append('<text x="%d" y="16" font-size="13" font-weight="600">speed vs reference (log scale)</text>' % LABEL_W)
    x0d = LABEL_W + SPEED_W + GAP
    p.append('<text x="%d" y="16" font-size="13" font-weight="600">drift vs strict baseline (log scale)</text>' % x0d)
    bottom = TOP + ROW_H * len(settings)
    # speed axis: gridlines at powers of two, the 1x line darker
    powers = int(round(math.log2(hi / lo)))
    every = max(1, int(math.ceil(powers * 46.0 / SPEED_W)))  # labels at least 46 px apart
    for k in range(powers + 1):
        v = lo * 2 ** k
        x = _speed_x(v, lo, hi)
        p.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1"/>' % (
            x, TOP - 6, x, bottom, "#555" if abs(v - 1) < 1e-9 else "#e3e3e3"))
        if (int(round(math.log2(v))) % every) == 0:
            label = ("%gx" % v) if v >= 1 else ("1/%gx" % (1 / v))
            p.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="#555">%s</text>'
                     % (x, bottom + 14, label))
    for k in range(-10, 1, 2):
        x = _drift_x(10.0 ** k)
        p.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e3e3e3"/>' % (x, TOP - 6, x, bottom))
        p.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="#555">1e%d</text>' % (x, bottom + 14, k))
    xt = _drift_x(tolerance)
    p.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#c62828" stroke-dasharray="4 3" stroke-width="1.5"/>'
             % (xt, TOP - 6, xt, bottom))
    tol_text = "tolerance %s" % fmt_drift(tolerance)
    half = text_width(tol_text, VALUE_FONT) / 2
    xt_label = min(max(xt, x0d + half), width - 2 - half)  # a tolerance at either end stays in the chart
    p.append('<text x="%.1f" y="%d" font-size="11" fill="#c62828" text-anchor="middle">%s</text>'
             % (xt_label, TOP - 10, e(tol_text)))
    one = _speed_x(1.0, lo, hi)
    for i, s in enumerate(settings):
        y = TOP + i * ROW_H
        mid = y + ROW_H / 2
        p.append('<g class="row" data-setting="%s">' % e(s["id"]))
        if i % 2:
            p.append('<rect x="0" y="%d" width="%d" height="%d" fill="#fafafa"/>' % (y, width, ROW_H))
        label = fit(s["label"], LABEL_FONT, LABEL_W - 16)
        p.append('<text x="%d" y="%.1f" font-size="12" text-anchor="end" dominant-baseline="middle">%s</text>'
                 % (LABEL_W - 8, mid, e(label)))
        p.append('<title>%s: %s</title>' % (e(s["label"]), e(verdict_text(s))))
        sp = s.get("speedup")
        bar_y, bar_h = y + 5, ROW_H - 10
        if s.get("role") == "default" or (s.get("role") == "reference" and s.get("time")):
            p.append('<rect class="bar speed ref" x="%.1f" y="%d" width="4" height="%d" fill="%s"/>' % (
                one - 2, bar_y, bar_h, COLORS["ref"]))
            p.append('<text x="%.1f" y="%.1f" font-size="11" dominant-baseline="middle" fill="#1565c0">reference'
                     '</text>' % (one + 6, mid))
        elif sp:
            verdict = sp["verdict"]
            color = COLORS.get(verdict, COLORS["few"])
            xv = _speed_x(sp["value"], lo, hi)
            x1, x2 = sorted((one, xv))
            p.append('<rect class="bar speed %s" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
                e(verdict), x1, bar_y, max(2.0, x2 - x1), bar_h, color))
            xl, xh = _speed_x(sp["low"], lo, hi), _speed_x(sp["high"], lo, hi)
            p.append('<line class="range" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222" stroke-width="1.2"/>'
                     % (xl, mid, xh, mid))
            for xx in (xl, xh):
                p.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222" stroke-width="1.2"/>'
                         % (xx, mid - 4, xx, mid + 4))
            off = sp["value"] < lo or sp["value"] > hi
            text = _x(sp["value"]) + (" (off scale)" if off else "")
            tx, anchor, fill = value_place(text, min(x1, xl), max(x2, xh), x1, x2)
            p.append('<text x="%.1f" y="%.1f" font-size="11" text-anchor="%s" dominant-baseline="middle"%s>%s</text>'
                     % (tx, mid, anchor, ' fill="#ffffff"' if fill else "", e(text)))
        else:
            why = STATUS_WORDS.get(s.get("status"), s.get("status") or "")
            if s.get("status") == "measured":
                why = "timed"
            p.append('<rect class="bar speed none" x="%.1f" y="%d" width="%d" height="%d" fill="%s"/>' % (
                LABEL_W + 2, bar_y, 12, bar_h, COLORS["none"]))
            p.append('<text x="%d" y="%.1f" font-size="11" fill="#666" dominant-baseline="middle">%s</text>' % (
                LABEL_W + 20, mid, e(why)))
        d = s.get("drift")
        if d and drift_value(d) is not None:
            dv = _num(drift_value(d))
            xd = _drift_x(dv)
            bad = d.get("within_tolerance") is False
            p.append('<rect class="bar drift %s" x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
                "bad" if bad else "ok", x0d, bar_y, max(2.0, xd - x0d), bar_h,
                COLORS["drift_bad"] if bad else COLORS["drift_ok"]))
            p.append('<text x="%.1f" y="%.1f" font-size="11" dominant-baseline="middle">%s</text>' % (
                max(xd, x0d + 2) + 5, mid, e(fmt_drift(drift_value(d)))))
        else:
            p.append('<rect class="bar drift none" x="%d" y="%d" width="12" height="%d" fill="%s"/>' % (
                x0d, bar_y, bar_h, COLORS["none"]))
            p.append('<text x="%d" y="%.1f" font-size="11" fill="#666" dominant-baseline="middle">-</text>' % (
                x0d + 18, mid))
        p.append('</g>')
    p.append('</svg>')
    return "\n".join(p)


def render_html(result: Dict[str, Any]) -> str:
    opts = result.get("options") or {}
    tol = float(opts.get("tolerance") or 1e-3)
    title = "torchdoctor tune: %s" % (opts.get("model") or "built-in workloads")
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           # No network, no scripts: a CSP that forbids both, for a browser that honours it.
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
           'img-src data:">',
           '<title>%s</title>' % e(title), '<style>%s</style></head><body>' % CSS,
           '<h1>%s</h1>' % e(title)]
    out.extend('<p class="meta">%s</p>' % e(ln) for ln in header_lines(result))
    info = knowledge()
    families: List[str] = []
    for w in result.get("workloads") or []:
        out.append('<section class="workload" data-workload="%s">' % e(w["name"]))
        out.append('<h2>%s</h2>' % e(w["name"]))
        if w.get("description"):
            out.append('<p class="meta">%s%s</p>' % (e(w["description"]), e(" (input %s, %s)" % (
                w.get("input"), w.get("mode"))) if w.get("input") else ""))
        if not w.get("settings"):
            out.append('<p>%s%s</p>' % (e(STATUS_WORDS.get(w.get("status"), w.get("status"))),
                                        e(": " + w["reason"]) if w.get("reason") else ""))
            out.append('</section>')
            continue
        out.append(chart(w, tol))
        if noise_line(w):
            out.append('<p class="note">%s</p>' % e(noise_line(w)))
        out.append('<table><tr>%s</tr>' % "".join("<th>%s</th>" % e(h) for h in HEAD))
        for r in rows(w):
            if len(r) == len(HEAD):
                cls = ' class="faster"' if "faster" in r[3] else (' class="slower"' if "slower" in r[3] else "")
                cells = [e(c) for c in r]
                if r[5] == "DIFFER":
                    cells[5] = '<span class="differ">DIFFER</span>'
                out.append('<tr%s>%s</tr>' % (cls, "".join("<td>%s</td>" % c for c in cells)))
            else:
                out.append('<tr><td>%s</td><td colspan="%d" class="note">%s</td></tr>' % (e(r[0]), len(HEAD) - 1, e(r[1])))
        out.append('</table>')
        rec = w.get("recommendations") or {}
        out.append('<h3>For speed</h3><ul>')
        out.extend('<li class="faster">%s</li>' % e(i["text"]) for i in rec.get("speed") or [])
        out.extend('<li>%s</li>' % e(n) for n in rec.get("speed_notes") or [])
        if rec.get("caveat"):
            out.append('<li>%s</li>' % e(rec["caveat"]))
        out.append('</ul>')
        if rec.get("code_speed"):
            out.append('<pre><code>%s</code></pre>' % e(rec["code_speed"]))
        out.append('<h3>For reproducibility</h3><ul>')
        out.extend('<li>%s</li>' % e(i["text"]) for i in rec.get("reproducibility") or [])
        out.append('</ul>')
        if rec.get("code_reproducibility"):
            out.append('<pre><code>%s</code></pre>' % e(rec["code_reproducibility"]))
        out.append('</section>')
        for s in w.get("settings") or []:
            if s.get("family") in info and s["family"] not in families:
                families.append(s["family"])
    fs = result.get("findings") or []
    if fs:
        out.append('<h2>Findings</h2><ul>')
        for f in fs:
            out.append('<li class="finding-%s"><b>%s</b> %s <code>%s</code><br><span class="note">%s</span></li>' % (
                e(f.get("severity")), e(f.get("severity")), e(f.get("title")), e(f.get("id")), e(f.get("detail") or "")))
        out.append('</ul>')
    if families:
        out.append('<h2>What the settings mean</h2><ul>')
        for fam in families:
            k = info[fam]
            out.append('<li><b>%s</b>: %s <a href="%s">docs</a></li>' % (e(k["title"]), e(k["meaning"]), e(k["docs"])))
        out.append('</ul>')
    out.append('<p class="note">%s The bars show the speedup against the reference with the range the '
               'interquartile ranges allow. torchdoctor %s</p>' % (e(legend(result)),
                                                                  e((result.get("tool") or {}).get("version", ""))))
    out.append('</body></html>')
    from ...render.safe import visible  # no bidi override or control from a saved result
    return visible("\n".join(out) + "\n")
