#!/usr/bin/env python3
"""The catalogue of messages torch (and its companions) print about their environment,
generated from the released files, and how much of it `torchdoctor explain` recognises.

A maintainer tool, not part of the test run: it reads wheels of several hundred MB.

    python tools/catalogue.py --out torchdoctor/kb/catalogue     # regenerate every file
    python tools/catalogue.py --coverage                         # what the knowledge base covers
    python tools/catalogue.py --refresh                          # after a KB or review change
    python tools/catalogue.py --unreviewed                       # rows awaiting a person's decision

What it reads (wheels and sdists are read as archives, never installed):

* torch wheels (default `torch==2.13.0` and `torch==2.14.1`, fetched with `pip download
  --no-deps` into the cache; `--torch PATH` takes a file instead): the raise/warn sites of the
  Python modules in `cataloguer/sources.py` (ast), and the prose strings of `torch/lib/*.so`
  (streamed) that an environment keyword picks;
* for a CUDA torch wheel, the status tables of the CUDA libraries its Requires-Dist pins
  (cudaGetErrorString, ncclGetErrorString, cuDNN's status names) and torch's own cuBLAS and
  cuSOLVER status names, each in the wrapper torch prints it in;
* the companions in `cataloguer/sources.py` (pinned versions; `--companion NAME=PATH` takes a
  file): environment messages only; one pip cannot get is listed in the file's `unreachable`.

Each row is classified (rules in `cataloguer/classify.py`, then the decisions a person made,
kept in `tools/catalogue_overrides.json`) and given the knowledge-base entry the real matcher
(`torchdoctor.match.matcher.match_text`) ranks first on a rendering of the text. Running it
twice gives identical files: a file whose rows did not change keeps its date.

The coverage ratchet (`tests/kb/catalogue_ratchet.json`): the environment rows of each torch
catalogue that no entry recognises. Regenerating or refreshing only ever removes ids from it;
a row that newly goes uncovered is printed and not added (exit status 1) unless
`--accept-new` says the list may grow (a new release's rows).

Exit status: 0 done, 1 the ratchet would have to grow, 2 bad usage or an input that cannot be read.
"""

import argparse
import datetime
import json
import os
import re
import sys
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (ROOT, os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from cataloguer import archives, classify, collect, coverage, sources, status  # noqa: E402
from cataloguer import rows as R  # noqa: E402

OUT = os.path.join("torchdoctor", "kb", "catalogue")
OVERRIDES = os.path.join(ROOT, "tools", "catalogue_overrides.json")
RATCHET = os.path.join(ROOT, "tests", "kb", "catalogue_ratchet.json")
COMMAND = "python tools/catalogue.py --out torchdoctor/kb/catalogue"
DEFAULT_TORCH = ("torch==2.13.0", "torch==2.14.1")
COMPANIONS_FILE = "companions"
ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip")


def default_cache() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torchdoctor-catalogue")


class Fetcher:
    """Files by path or by pip requirement, each recorded once as an input of the file
    being built (its name and sha256, never the local path)."""

    def __init__(self, cache: str, given: Dict[str, str]):
        self.cache = cache
        self.given = given  # distribution name -> path the maintainer gave
        self.inputs: List[Dict[str, str]] = []

    def get(self, spec: str, role: str, sdist_env: Optional[Dict[str, str]] = None) -> archives.Archive:
        if not os.path.exists(spec) and (os.sep in spec or "/" in spec or spec.endswith(ARCHIVE_SUFFIXES)):
            raise ValueError("%s: no such file" % spec)
        name = re.split(r"[=<>!~ ]", spec, 1)[0]
        path = spec if os.path.exists(spec) else self.given.get(name)
        if path is None:
            try:
                path = archives.pip_download(spec, self.cache)
            except archives.DownloadError:
                if not sdist_env:
                    raise
                # An sdist whose setup.py imports torch or starts a CUDA build: read its
                # metadata with this interpreter (and its torch), the CUDA build switched off.
                path = archives.pip_download(spec, self.cache, env=sdist_env, no_build_isolation=True)
        archive = archives.Archive(path)
        if not os.path.exists(spec):
            _check_version(spec, archive)
        self.inputs.append({"file": archive.filename, "sha256": archives.sha256(path), "role": role})
        return archive


def _check_version(spec: str, archive: archives.Archive) -> None:
    """A file given for a requirement must be the version the requirement names."""
    from packaging.requirements import Requirement
    meta = archive.metadata()
    req = Requirement(spec)
    if meta["version"] is None or (req.specifier and not req.specifier.contains(str(meta["version"]), prereleases=True)):
        raise ValueError("%s is version %s of %s, not %s" % (archive.filename, meta["version"], meta["name"], spec))


# -- building ------------------------------------------------------------------------------

def torch_rows(fetch: Fetcher, spec: str, notes: List[str]) -> Tuple[str, str, List[Dict[str, object]]]:
    """(catalogue name, release, rows before classification) of one torch wheel."""
    wheel = fetch.get(spec, "torch wheel")
    meta = wheel.metadata()
    version = str(meta["version"])
    m = re.match(r"(\d+)\.(\d+)", version)
    if meta["name"] != "torch" or not m:
        raise ValueError("%s is not a torch wheel (Name %s, Version %s)" % (wheel.filename, meta["name"], version))
    release = "torch " + version
    sites = list(collect.python_sites(wheel, lambda n: collect.scope_of(n, sources.TORCH_SCOPES) is not None))
    sites += list(collect.cmake_sites_of(wheel, lambda n: n.startswith(sources.TORCH_CMAKE)))
    libs = [n for n in wheel.names() if n.startswith("torch/lib/") and ".so" in os.path.basename(n)
            and not sources.TORCH_LIB_SKIP.search(os.path.basename(n))]
    found = {rx: set() for rx, _ in sources.TORCH_STATUS_NAMES}
    sites += list(collect.binary_sites(wheel, libs, found))
    cuda_lib = next((n for n in libs if "libtorch_cuda.so" in n), None)
    if cuda_lib:
        for rx, wrapper in sources.TORCH_STATUS_NAMES:
            sites += collect.status_sites("", [(n, n) for n in sorted(found[rx])], wrapper, cuda_lib)
    rows = R.make_rows("torch", release, sites)
    if cuda_lib:
        rows += status_rows(fetch, list(meta["requires"]), notes)  # type: ignore[arg-type]
    else:
        notes.append("A CPU build: no CUDA library status tables.")
    wheel.close()
    return "torch-%s.%s" % m.groups(), release, rows


def status_rows(fetch: Fetcher, requires: List[str], notes: List[str]) -> List[Dict[str, object]]:
    """Rows of the status tables of the CUDA libraries the torch wheel pins."""
    names = tuple(s["name"] for s in sources.STATUS_LIBS) + ("cuda-toolkit",)
    pins = archives.requirement_pins(requires, names)
    if "cuda-toolkit" in pins:
        toolkit = fetch.get("cuda-toolkit==%s" % pins["cuda-toolkit"], "pins of the CUDA libraries")
        pins.update({k: v for k, v in archives.requirement_pins(list(toolkit.metadata()["requires"]), names).items()
                     if k not in pins})
        toolkit.close()
    out: List[Dict[str, object]] = []
    for spec in sources.STATUS_LIBS:
        name = spec["name"]
        if name not in pins:
            notes.append("%s: the torch wheel pins no version of it; its status table is not read." % name)
            continue
        lib_archive = fetch.get("%s==%s" % (name, pins[name]), "status table")
        version = str(lib_archive.metadata()["version"])
        member = next((n for n in lib_archive.names() if re.search(spec["lib"], n)), None)
        if member is None:
            raise ValueError("%s has no library matching %s" % (lib_archive.filename, spec["lib"]))
        lib = os.path.basename(member)
        if "func" in spec:
            entries = [(str(c), t) for c, t in status.table(lib_archive, member, spec["func"])]
        else:
            with lib_archive.open(member) as fh:
                entries = [(n, n) for n in status.names(fh, spec["names"])]
        sites = collect.status_sites(spec.get("func", ""), entries, spec["wrapper"], lib)
        notes.append("%s %s: %d status texts from %s (%s), in torch's wrapper %r."
                     % (name, version, len(sites), lib, spec.get("func") or "status names in its strings",
                        spec["wrapper"]))
        out += R.make_rows(name, "%s %s" % (name, version), sites)
        lib_archive.close()
    return out


def companion_rows(fetch: Fetcher, unreachable: List[Dict[str, str]]) -> List[Dict[str, object]]:
    out: List[Dict[str, object]] = []
    for comp in sources.COMPANIONS:
        try:
            archive = fetch.get(comp["spec"], "companion", comp.get("sdist_env"))
        except (archives.DownloadError, ValueError, OSError) as e:
            unreachable.append({"package": comp["name"], "spec": comp["spec"], "reason": str(e)[:300]})
            continue
        meta = archive.metadata()
        top = re.sub(r"[-.]", "_", comp["name"]).lower()
        ours = lambda n: n.split("/", 1)[0].lower().startswith(top) and not sources.COMPANION_SKIP.search(n)  # noqa: E731
        sites = list(collect.python_sites(archive, ours))
        if comp["libs"]:
            libs = [n for n in archive.names() if re.search(comp["libs"], n)]
            sites += list(collect.binary_sites(archive, libs))
        out += R.make_rows(comp["name"], "%s %s" % (comp["name"], meta["version"]), sites)
        archive.close()
    return out


def keeps(row: Dict[str, object], catalogue: str) -> bool:
    """Whether a classified row stays in its catalogue: a companion's only when it is about the
    environment, torch's unless it comes from a module read for its environment messages only."""
    if row["class"] == classify.ENVIRONMENT:
        return True
    if catalogue == COMPANIONS_FILE:
        return False
    path = str(row["where"]).rsplit(":", 1)[0]
    return not path.endswith(".py") or collect.scope_of(path, sources.TORCH_SCOPES) != sources.ENV


def refresh(catalogue: str, rows: List[Dict[str, object]], decisions, match) -> List[Dict[str, object]]:
    """Classify (rules, then review decisions), drop what the catalogue does not keep, and
    give each row the entry that recognises it today."""
    for row in rows:
        classify.classify(row, decisions)
    kept = [r for r in rows if keeps(r, catalogue)]
    for row in kept:
        row["entry"] = match(row)
    return kept


def matcher():
    from torchdoctor.match.matcher import default_index, match_text
    index = default_index()
    return lambda row: R.recognising_entry(row, match_text, index)


# -- the ratchet ---------------------------------------------------------------------------

def load_ratchet(path: str = RATCHET) -> Dict[str, Dict[str, str]]:
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return {k: v for k, v in data.items() if k.startswith("torch-")}


def update_ratchet(files: Dict[str, Dict[str, object]], accept_new: bool, path: str = RATCHET) -> List[str]:
    """Shrink the ratchet to what is still uncovered; the newly uncovered rows are returned
    (and added only with accept_new, or for a catalogue the ratchet does not hold yet)."""
    old = load_ratchet(path)
    new: Dict[str, Dict[str, str]] = {}
    grew: List[str] = []
    for name, data in sorted(files.items()):
        if not name.startswith("torch-"):
            continue
        now = coverage.uncovered_environment(data["rows"])  # type: ignore[arg-type]
        if name in old and not accept_new:
            grew += ["%s %s %s" % (name, i, t.replace("\n", " | ")[:120]) for i, t in sorted(now.items())
                     if i not in old[name]]
            now = {i: t for i, t in now.items() if i in old[name]}
        new[name] = dict(sorted(now.items()))
    for name in old:
        new.setdefault(name, old[name])
    body = {"about": "Environment rows of each torch catalogue that no knowledge-base entry recognises "
                     "(id: text). Only ever shrinks: tools/catalogue.py --refresh removes the rows an "
                     "entry now covers; tests/kb/test_kb_catalogue.py fails when a row is missing here "
                     "or listed but covered."}
    body.update({k: new[k] for k in sorted(new)})
    text = json.dumps(body, indent=1, ensure_ascii=False) + "\n"
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return grew


# -- commands ------------------------------------------------------------------------------

def generate(args) -> Dict[str, Dict[str, object]]:
    decisions = classify.load_overrides(args.overrides)
    match = matcher()
    given = dict(_pairs(args.companion, "--companion") + _pairs(args.lib, "--lib"))
    today = datetime.date.today().isoformat()
    files: Dict[str, Dict[str, object]] = {}
    os.makedirs(args.out, exist_ok=True)
    for spec in args.torch or DEFAULT_TORCH:
        fetch = Fetcher(args.cache, given)
        notes: List[str] = []
        name, release, rows = torch_rows(fetch, spec, notes)
        rows = refresh(name, rows, decisions, match)
        header = {"catalogue": name, "release": release,
                  "generated": {"command": COMMAND, "tool": "tools/catalogue.py"},
                  "inputs": fetch.inputs,
                  "scope": {"python": ["%s (%s)" % p for p in sources.TORCH_SCOPES],
                            "libraries": "torch/lib/*.so* except tests (prose strings an environment keyword picks)",
                            "cmake": "%s**/*.cmake: message(FATAL_ERROR|SEND_ERROR|WARNING|AUTHOR_WARNING) calls of the "
                                     "files that can run (the entry points nothing includes, and what they reach through "
                                     "include() and find_package()), outside branches the build switched off; helper "
                                     "functions are read whether or not a caller reaches them" % sources.TORCH_CMAKE},
                  "notes": notes}
        _write(args.out, name, header, rows, today)
        files[name] = R.load(os.path.join(args.out, name + ".json"))
    if not args.no_companions:
        fetch = Fetcher(args.cache, given)
        unreachable: List[Dict[str, str]] = []
        rows = refresh(COMPANIONS_FILE, companion_rows(fetch, unreachable), decisions, match)
        header = {"catalogue": COMPANIONS_FILE, "release": ", ".join(c["spec"] for c in sources.COMPANIONS),
                  "generated": {"command": COMMAND, "tool": "tools/catalogue.py"},
                  "inputs": fetch.inputs,
                  "scope": {"python": "each package's own .py files (tests, examples, setup.py left out); "
                                      "environment rows only",
                            "libraries": "each package's own native libraries (cataloguer/sources.py)"},
                  "notes": ["Versions pinned in tools/cataloguer/sources.py (COMPANIONS); a package pip could "
                            "not get is listed under unreachable with pip's reason."],
                  "unreachable": unreachable}
        _write(args.out, COMPANIONS_FILE, header, rows, today)
        files[COMPANIONS_FILE] = R.load(os.path.join(args.out, COMPANIONS_FILE + ".json"))
    return files


def _write(out: str, name: str, header, rows, today: str) -> None:
    bad = [(r["id"], p) for r in rows for p in R.validate(r)]
    if bad:
        raise ValueError("%s: rows that do not fit the schema: %s" % (name, bad[:5]))
    path = os.path.join(out, name + ".json")
    changed = R.write(path, header, rows, today)
    print("%s: %d rows%s" % (path, len(rows), "" if changed else " (unchanged)"), file=sys.stderr)


def _pairs(values: List[str], flag: str) -> List[Tuple[str, str]]:
    out = []
    for v in values or ():
        name, sep, path = v.partition("=")
        if not sep or not os.path.isfile(path):
            raise ValueError("%s %s: expected NAME=PATH of an existing file" % (flag, v))
        out.append((name, path))
    return out


def load_files(out: str) -> Dict[str, Dict[str, object]]:
    if not os.path.isdir(out):
        raise ValueError("%s: no catalogue folder (generate it with --out %s)" % (out, out))
    names = sorted(f[:-5] for f in os.listdir(out) if f.endswith(".json"))
    if not names:
        raise ValueError("%s holds no catalogue file" % out)
    return {n: R.load(os.path.join(out, n + ".json")) for n in names}


def refresh_files(args) -> Dict[str, Dict[str, object]]:
    """Re-apply the rules, the review decisions and the matcher to the files as they are."""
    decisions = classify.load_overrides(args.overrides)
    match = matcher()
    today = datetime.date.today().isoformat()
    files = load_files(args.out)
    for name, data in files.items():
        rows = refresh(name, list(data["rows"]), decisions, match)  # type: ignore[arg-type]
        header = {k: data[k] for k in R.HEADER if k in data}
        _write(args.out, name, header, rows, today)
        files[name] = R.load(os.path.join(args.out, name + ".json"))
    return files


def print_coverage(args) -> None:
    files = load_files(args.out)
    match = matcher()
    live = {str(r["id"]): match(r) for data in files.values() for r in data["rows"]  # type: ignore[union-attr]
            if r["class"] == classify.ENVIRONMENT}
    print(coverage.summary(files, live, examples=args.examples))


def print_unreviewed(args) -> int:
    """The environment rows no person has decided on yet, one JSON line each: what to read
    and then record in the overrides file."""
    decisions = classify.load_overrides(args.overrides)
    seen = set()
    for data in load_files(args.out).values():
        for r in data["rows"]:  # type: ignore[union-attr]
            if r["class"] == classify.ENVIRONMENT and r["id"] not in decisions and r["id"] not in seen:
                seen.add(r["id"])
                print(json.dumps({"id": r["id"], "text": r["text"], "where": r["where"], "reasons": r["reasons"]},
                                 ensure_ascii=False))
    return 1 if seen else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT, help="catalogue folder (default %(default)s)")
    ap.add_argument("--coverage", action="store_true", help="print what the knowledge base covers, and exit")
    ap.add_argument("--unreviewed", action="store_true",
                    help="print the environment rows without a review decision (exit 1 when there are some)")
    ap.add_argument("--refresh", action="store_true",
                    help="re-classify and re-match the existing files (no wheels needed), and exit")
    ap.add_argument("--torch", action="append", metavar="SPEC_OR_PATH",
                    help="a torch wheel or requirement (repeatable; default: %s)" % ", ".join(DEFAULT_TORCH))
    ap.add_argument("--companion", action="append", metavar="NAME=PATH", help="a companion's wheel or sdist")
    ap.add_argument("--lib", action="append", metavar="NAME=PATH",
                    help="a wheel for a status-table library or cuda-toolkit (e.g. nvidia-nccl-cu13=...whl)")
    ap.add_argument("--no-companions", action="store_true", help="leave companions.json as it is")
    ap.add_argument("--cache", default=default_cache(), help="where pip downloads go (default %(default)s)")
    ap.add_argument("--overrides", default=OVERRIDES, help=argparse.SUPPRESS)
    ap.add_argument("--ratchet", default=RATCHET, help=argparse.SUPPRESS)
    ap.add_argument("--accept-new", action="store_true", help="let the coverage ratchet grow (a new release)")
    ap.add_argument("--examples", type=int, default=3, help="examples per theme in --coverage (default 3)")
    args = ap.parse_args(argv)
    try:
        if args.coverage:
            print_coverage(args)
            return 0
        if args.unreviewed:
            return print_unreviewed(args)
        files = refresh_files(args) if args.refresh else generate(args)
    except (ValueError, OSError, archives.DownloadError) as e:
        print("catalogue: %s" % e, file=sys.stderr)
        return 2
    grew = update_ratchet(files, args.accept_new, args.ratchet)
    if grew:
        print("catalogue: %d environment rows are no longer recognised (not added to the ratchet; "
              "--accept-new adds them):\n  %s" % (len(grew), "\n  ".join(grew[:50])), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
