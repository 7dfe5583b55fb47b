"""The --report .html page: self-contained (no script, nothing fetched), every text
escaped, and in headless Chromium a screenshot that is not blank and shows every
setting's bar. Built from a synthetic result (no torch needed)."""

import re
import xml.etree.ElementTree as ET

import pytest

import tune_browser as B
from test_verbs_tune_analysis import check, finish, plan, result, setting, times
from torchdoctor.children.timed import ProcResult
from torchdoctor.verbs.tune.html import render_html
from torchdoctor.verbs.tune.runner import TuneOptions

EVIL = '<script>alert("x")</script>'
BG = (255, 255, 255)


def page(model=EVIL):
    recs = finish([
        plan(workload=model, settings=[
            setting("threads=1", "threads", "threads", label="threads=1"),
            setting("mkldnn.enabled=False", "mkldnn.enabled", label="oneDNN off " + EVIL),
            setting("float32_matmul_precision=medium", "float32_matmul_precision", label="precision medium"),
            setting("channels_last", "channels_last", label="channels_last"),
            setting("inference_mode", "inference_mode", label="inference_mode", status="not_applicable",
                    reason="only for --mode infer"),
        ]),
        check("default", workload=model), check("threads=1", workload=model),
        check("mkldnn.enabled=False", rel=2e-2, workload=model),
        check("float32_matmul_precision=medium", rel=1e-6, workload=model, repro=False),
        times("default", 1e-3, workload=model), times("threads=1", 5e-4, workload=model),
        times("mkldnn.enabled=False", 2e-3, workload=model),
        times("float32_matmul_precision=medium", 1e-3, 0.3, workload=model),
        {"type": "setting_error", "workload": model, "setting": "channels_last", "phase": "check",
         "error": "RuntimeError: " + EVIL, "t": 4.0},
    ], workload=model)
    r = result(recs, TuneOptions(model=model, inputs="m:inputs", tolerance=1e-3), ProcResult(argv=[], returncode=0))
    return r, render_html(r)


def test_the_page_has_no_script_and_fetches_nothing():
    _, html = page()
    low = html.lower()
    assert "<script" not in low  # the model name and the error text are escaped
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", low.replace('href="https://docs.pytorch.org', ""))
    assert "<link" not in low and "@import" not in low and "url(" not in low
    assert "default-src 'none'" in html  # and a CSP that forbids anything a browser would fetch


def test_one_speed_bar_and_one_drift_bar_per_setting():
    r, html = page()
    settings = r["workloads"][0]["settings"]
    svg = re.search(r"<svg.*?</svg>", html, re.S).group(0)
    root = ET.fromstring(svg)  # well-formed: escaping did not break the markup
    ns = "{http://www.w3.org/2000/svg}"
    rows = [g for g in root.iter(ns + "g") if g.get("class") == "row"]
    assert [g.get("data-setting") for g in rows] == [s["id"] for s in settings]
    for g in rows:
        classes = [el.get("class", "") for el in g.iter(ns + "rect")]
        assert sum(c.startswith("bar speed") for c in classes) == 1, (g.get("data-setting"), classes)
        assert sum(c.startswith("bar drift") for c in classes) == 1
    by = {g.get("data-setting"): [el.get("class") for el in g.iter(ns + "rect") if "bar" in el.get("class", "")]
          for g in rows}
    assert "bar speed faster" in by["threads=1"] and "bar speed slower" in by["mkldnn.enabled=False"]
    assert "bar drift bad" in by["mkldnn.enabled=False"]  # 2e-2 > tolerance 1e-3
    assert "bar speed none" in by["inference_mode"] and "bar speed ref" in by["default"]


@pytest.mark.skipif(not B.available(), reason=B.SKIP_REASON)
def test_chromium_screenshot_is_not_blank_and_shows_every_bar(tmp_path):
    r, html = page()
    path = tmp_path / "tune.html"
    path.write_text(html, encoding="utf-8")
    png = tmp_path / "tune.png"
    B.screenshot(str(path), str(png), width=1000, height=700)
    w, h, rows = B.read_png(str(png), max_rows=700)
    assert (w, h) == (1000, 700)
    ink = sum(1 for row in rows for i in range(0, len(row), 3) if tuple(row[i:i + 3]) != BG)
    assert ink > 0.02 * w * h, "the screenshot is (nearly) blank: %d non-white pixels" % ink
    # Every setting's row in the chart has coloured bar pixels (not grey text, not white):
    # find the chart's rows by the colours the bars are drawn in.
    colours = {(0x2e, 0x7d, 0x32), (0xc6, 0x28, 0x28), (0x8d, 0x8d, 0x8d), (0x15, 0x65, 0xc0), (0xd9, 0xd9, 0xd9),
               (0x5c, 0x6b, 0xc0), (0xb0, 0xa0, 0x60)}
    bar_rows = [y for y, row in enumerate(rows)
                if sum(1 for i in range(0, len(row), 3) if tuple(row[i:i + 3]) in colours) >= 6]
    bands, last = [], None
    for y in bar_rows:
        if last is None or y > last + 2:
            bands.append([y, y])
        else:
            bands[-1][1] = y
        last = y
    n = len(r["workloads"][0]["settings"])
    assert len(bands) >= n, "expected a band of bar pixels for each of the %d settings, found %d: %r" % (
        n, len(bands), bands)
    # One screenshot kept for a person to look at when this fails.
    print("screenshot:", png)


def test_the_markdown_report_escapes_the_model_name_too():
    from torchdoctor.verbs.tune.render import render_markdown
    r, _ = page()
    md = render_markdown(r)
    assert "<script" not in md and "&lt;script&gt;" in md
    # and a | in a name cannot split a table row
    r2, _ = page(model="a|b")
    rows = [ln for ln in render_markdown(r2).splitlines() if ln.startswith("| ")]
    assert all(ln.count(" | ") == 5 for ln in rows if "\\|" not in ln)
