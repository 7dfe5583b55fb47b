"""Headless Chromium for the tune HTML tests: a screenshot of a page, and what is in it.

Debian's `chromium` package (`apt-get install -y chromium`; .ci/run installs it when it
is missing). Tests skip with the reason when /usr/bin/chromium is absent.
"""

import os
import shutil
import subprocess
import tempfile
import zlib
import struct

CHROMIUM = "/usr/bin/chromium"
SKIP_REASON = ("headless Chromium is needed for the HTML screenshot test and %s is absent "
               "(install Debian's chromium package: apt-get install -y chromium; .ci/run does)" % CHROMIUM)


def available() -> bool:
    return os.access(CHROMIUM, os.X_OK)


def screenshot(html_path: str, png_path: str, width: int = 1100, height: int = 1400, timeout: float = 90) -> None:
    profile = tempfile.mkdtemp(prefix="torchdoctor-chromium-")
    try:
        argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                "--user-data-dir=%s" % profile, "--screenshot=%s" % png_path,
                "--window-size=%d,%d" % (width, height), "file://" + os.path.abspath(html_path)]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(png_path):
            raise AssertionError("chromium wrote no screenshot (exit %s): %s" % (p.returncode, p.stderr[-800:]))
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def read_png(path: str, max_rows: int = 0):
    """(width, height, rows) of an 8-bit RGB/RGBA PNG, each row a bytes object of RGB
    triples, decoded with zlib only (no imaging library in the test extra). `max_rows`
    stops after that many rows (0: all)."""
    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    assert depth == 8 and ctype in (2, 6) and ihdr[6] == 0, "unexpected PNG format %r" % (ihdr,)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h if not max_rows else min(h, max_rows)):
        i = y * (stride + 1)
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(b for k, b in enumerate(line) if k % 4 != 3))
    return w, h, rows


# Measures every <text> of every chart where the browser laid it out (getBBox in the SVG's
# own units, the same as its width) and writes them into the page as JSON, which
# --dump-dom prints. Added to a copy of the page only: the page itself has no script and a
# policy that forbids one.
MEASURE = r"""
<script>
var out = [];
document.querySelectorAll("svg.chart").forEach(function (svg, i) {
  var w = svg.viewBox.baseVal.width;
  svg.querySelectorAll("text").forEach(function (t) {
    var b = t.getBBox();
    var g = t.closest("g.row");
    out.push({chart: i, width: w, text: t.textContent, row: g ? g.getAttribute("data-setting") : null,
              x: b.x, y: b.y, w: b.width, h: b.height});
  });
});
var pre = document.createElement("pre");
pre.id = "td-boxes";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def text_boxes(html: str, tmpdir: str, timeout: float = 90):
    """The laid-out box of every text in the page's charts, as Chromium measures it:
    [{chart, width, text, row, x, y, w, h}]."""
    import html as H
    import json
    import re
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html).replace("</body>", MEASURE + "</body>")
    path = os.path.join(tmpdir, "measure.html")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page)
    profile = tempfile.mkdtemp(prefix="torchdoctor-chromium-")
    try:
        argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=%s" % profile,
                "--dump-dom", "file://" + os.path.abspath(path)]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    m = re.search(r'<pre id="td-boxes">(.*?)</pre>', p.stdout, re.S)
    if not m:
        raise AssertionError("chromium measured nothing (exit %s): %s" % (p.returncode, p.stderr[-800:]))
    return json.loads(H.unescape(m.group(1)))


def overlaps(a, b, slack=0.5):
    return (a["x"] + slack < b["x"] + b["w"] and b["x"] + slack < a["x"] + a["w"] and
            a["y"] + slack < b["y"] + b["h"] and b["y"] + slack < a["y"] + a["h"])
