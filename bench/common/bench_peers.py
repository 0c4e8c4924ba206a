"""What the torch peers of every benchmark family share (bench/*/peers.py,
bench/*/*_peers.py): how a peer's call is timed, the line a run opens with,
and how its records are written.

Timing: triton.testing.do_bench's median (the L2 flushed before every call,
`warmup` ms of warm-up calls, then `rep` ms of calls each between its own
pair of CUDA events), the method ours copies (BenchTimer,
bench/common/bench_timer.cuh; docs/benchmarks.md, "How ours is timed").
Records: one JSON object a line, printed and written to the --out file,
which the family's report.py reads (bench/common/bench_results.py).

A script in bench/<family>/ imports this as

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "common"))
    import bench_peers
"""
import json


def do_bench_median(fn, warmup=25, rep=100):
    """The median ms of `fn` as triton.testing.do_bench times it."""
    from triton.testing import do_bench
    return do_bench(fn, warmup=warmup, rep=rep, return_mode="median")


def announce(prefix=None):
    """Prints torch's version and the GPU's name (every peer run's first
    line, after `prefix` when given) and returns the name."""
    import torch
    device = torch.cuda.get_device_name()
    if prefix:
        print(prefix, torch.__version__, device, flush=True)
    else:
        print(torch.__version__, device, flush=True)
    return device


class Recorder:
    """Writes records as JSON lines: each printed, and written (flushed) to
    `path` when one is given. `fields` are added to every record after its
    own; set_fields changes them (a loop's current shape). The records
    written are kept in `rows`."""

    def __init__(self, path=None, **fields):
        self.out = open(path, "w") if path else None
        self.fields = fields
        self.rows = []

    def set_fields(self, **fields):
        self.fields.update(fields)

    def __call__(self, **kw):
        kw.update(self.fields)
        self.rows.append(kw)
        line = json.dumps(kw)
        print(line, flush=True)
        if self.out:
            self.out.write(line + "\n")
            self.out.flush()
        return kw
