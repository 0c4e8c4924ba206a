"""What the report scripts of every benchmark family share
(bench/*/report.py, bench/*/*_report.py): reading the JSON lines the
drivers and the peers write and merging re-runs, medians over runs and
percentiles, and writing the records of bench/results/*.json, each stamped
with the commit and the date.

A script in bench/<family>/ imports this as

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "common"))
    import bench_results
"""
import datetime
import glob
import json
import math
import os
import statistics
import subprocess


def load_jsonl(*sources, missing_ok=False):
    """The records of JSON-lines files, in order: each source is a path (it
    must exist unless `missing_ok`) or a glob pattern (sorted; none matching
    is none). Lines that do not start with "{" are the tools' notes and are
    skipped."""
    out = []
    for source in sources:
        if glob.has_magic(source) or missing_ok:
            paths = sorted(glob.glob(source))
        else:
            paths = [source]
        for path in paths:
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if line.startswith("{"):
                        out.append(json.loads(line))
    return out


def last_by(rows, key):
    """The last of the rows of each key(row), ordered by key: a case measured
    more than once (a re-run, a resumed part of a sweep) keeps its newest
    record."""
    out = {}
    for r in rows:
        out[key(r)] = r
    return [out[k] for k in sorted(out)]


def median(xs):
    """statistics.median of `xs`; None for none."""
    xs = list(xs)
    return statistics.median(xs) if xs else None


def median_runs(rows, key):
    """{key(row): (median ms, [ms of each run], its first row)} over the
    rows that have a time."""
    runs = {}
    for r in rows:
        if r.get("ms"):
            runs.setdefault(key(r), []).append(r)
    return {k: (statistics.median(x["ms"] for x in rs), [x["ms"] for x in rs],
                rs[0])
            for k, rs in runs.items()}


def percentile(xs, q):
    """The nearest-rank q-th percentile of `xs` (q in 0..100); nan for
    none."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(math.ceil(q / 100.0 * len(xs))) - 1))]


def today():
    """The date a record carries (ISO, local)."""
    return datetime.date.today().isoformat()


def add_commit_arg(ap):
    """--commit: the commit the results are recorded against (the entry
    scripts pass git's; default EMB_COMMIT, which bench/common/env.sh sets,
    else "uncommitted")."""
    ap.add_argument("--commit", default=os.environ.get("EMB_COMMIT") or "uncommitted")


def commit_id(given=None):
    """The commit results are recorded against: `given`, else EMB_COMMIT
    (bench/common/env.sh sets it), else git's short hash of this tree, else
    "uncommitted" (a copy of the tree without .git)."""
    if given:
        return given
    if os.environ.get("EMB_COMMIT"):
        return os.environ["EMB_COMMIT"]
    try:
        return subprocess.check_output(
            ["git", "rev-parse", "--short", "HEAD"], stderr=subprocess.DEVNULL,
            cwd=os.path.dirname(os.path.abspath(__file__))).decode().strip()
    except Exception:  # noqa: BLE001: no git, or not a repository
        return "uncommitted"


def write_results(path, records):
    """Writes a bench/results/*.json file: the list of records, indent 1,
    and a final newline."""
    with open(path, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
