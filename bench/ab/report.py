"""The A/B table of bench/ab/run.sh: each case's median per side, the ratio
old/new, and the spread of the runs of each side.

    python3 bench/ab/report.py OUT RUNS
reads OUT/{new,old}-<run>/ and writes OUT/ab.json.
"""
import glob
import json
import os
import re
import statistics
import struct
import sys


def jsonl(path):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def times(d):
    """case -> ms for one run of one side."""
    t = {}
    for r in jsonl(os.path.join(d, "tbe.jsonl")):
        if r.get("impl", "").startswith("emb") and "ms" in r:
            t["tbe/" + r["case"]] = r["ms"]
    for r in jsonl(os.path.join(d, "tbe_train.jsonl")):
        if r.get("impl") == "emb" and "ms" in r:
            t["tbe_train/" + r["case"]] = r["ms"]
    for r in jsonl(os.path.join(d, "ikbo_lce.jsonl")):
        t["ikbo_lce_kernel/%s/%s" % (r.get("case", r.get("tag", "")),
                                     r["config"])] = r["ms"]
    for r in jsonl(os.path.join(d, "attention.jsonl")):
        if r.get("auto"):
            t["attention_kernel/Lk%d" % r["Lk"]] = r["ms"]
    for f in glob.glob(os.path.join(d, "*.txt")):
        name = os.path.basename(f)[:-4]
        m = re.search(r"@\S+: median ([0-9.]+) ms", open(f).read())
        if m:
            t["compiled/" + name] = float(m.group(1))
    return t


def npy(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    body = data[10 + hlen:]
    return header, body


def main():
    out, runs = sys.argv[1], int(sys.argv[2])
    sides = {s: [times(os.path.join(out, "%s-%d" % (s, r)))
                 for r in range(1, runs + 1)] for s in ("new", "old")}
    cases = sorted(set().union(*[t.keys() for t in sides["new"]]))
    records = []
    print("\n%-44s %9s %9s %7s  %s" % ("case", "new ms", "old ms", "old/new",
                                        "runs new | old"))
    for c in cases:
        new = [t[c] for t in sides["new"] if c in t]
        old = [t[c] for t in sides["old"] if c in t]
        rec = dict(case=c, new_ms=statistics.median(new), new_runs=new)
        if old:
            rec.update(old_ms=statistics.median(old), old_runs=old,
                       ratio=statistics.median(old) / statistics.median(new))
        records.append(rec)
        print("%-44s %9.4f %9s %7s  %s | %s" % (
            c, rec["new_ms"],
            "%.4f" % rec["old_ms"] if old else "-",
            "%.3f" % rec["ratio"] if old else "-",
            " ".join("%.4f" % x for x in new),
            " ".join("%.4f" % x for x in old)))
    a = os.path.join(out, "outputs-ikbo_benchmark", "ikbo_benchmark.result0.npy")
    b = os.path.join(out, "outputs-torch_ikbo_benchmark",
                     "ikbo_benchmark.result0.npy")
    if os.path.exists(a) and os.path.exists(b):
        same = npy(a)[1] == npy(b)[1]
        print("torch-form IKBO benchmark output vs emb-dialect, same inputs: %s"
              % ("bit-identical" if same else "DIFFERENT"))
        records.append(dict(case="torch_form_outputs",
                            identical=bool(same)))
    json.dump(records, open(os.path.join(out, "ab.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
