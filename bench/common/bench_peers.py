"""What the torch peers of every benchmark family share (bench/*/peers.py,
bench/*/*_peers.py): how a peer's call is timed, the line a run opens with,
and how its records are written.

Timing: triton.testing.do_bench's median (the L2 flushed before every call,
`warmup` ms of warm-up calls, then `rep` ms of calls each between its own
pair of CUDA events), the method ours copies (BenchTimer,
bench/common/bench_timer.cuh; docs/benchmarks.md, "How ours is timed").
Timer is the same method for a driver that times ours and the peers through
torch and sizes its runs itself (bench/tbe_sweep/sweep.py), and runs on the
CPU too (dry runs: no triton there); copy_gbps measures the copy bandwidth
with it.
Records: one JSON object a line, printed and written to the --out file,
which the family's report.py reads (bench/common/bench_results.py).

A script in bench/<family>/ imports this as

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "common"))
    import bench_peers
"""
import json
import statistics
import time

# The L2 flush before every timed call: a write of this many bytes, over the
# H200's 60 MB L2.
FLUSH_BYTES = 256 << 20


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


class Timer:
    """Times calls on `dev`. On the GPU each timed call is between its own
    pair of CUDA events, after a write of FLUSH_BYTES that flushes L2, the
    calls issued back to back and synchronized once; on the CPU (dry runs)
    each call's wall time."""

    def __init__(self, dev):
        import torch
        self.torch = torch
        self.cuda = dev.type == "cuda"
        self.flush = torch.empty(FLUSH_BYTES if self.cuda else 1, dtype=torch.uint8, device=dev)

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def once(self, fn):
        """Wall time of one call, synchronized (warm-up, estimates)."""
        self.sync()
        t = time.perf_counter()
        fn()
        self.sync()
        return (time.perf_counter() - t) * 1e3

    def warm_up(self, fn, ms=25.0, calls=2):
        """Calls `fn` for at least `ms` and at least `calls` times (the first
        call may compile); returns the last call's ms, the estimate that
        calls_per_run sizes a run by."""
        spent, n = 0.0, 0
        while n < calls or spent < ms:
            est = self.once(fn)
            spent, n = spent + est, n + 1
        return est

    def times(self, fn, reps):
        """The ms of each of `reps` timed calls."""
        if not self.cuda:
            return [self.once(fn) for _ in range(reps)]
        torch = self.torch
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
        for s, e in ev:
            self.flush.zero_()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in ev]


def calls_per_run(est_ms, run_ms, max_reps):
    """The timed calls of a run of a call estimated at `est_ms`: about
    `run_ms` of them, at most `max_reps`, at least 3 (1 past 500 ms a call)."""
    return max(1 if est_ms > 500 else 3, min(max_reps, int(run_ms / max(est_ms, 1e-3))))


def copy_gbps(timer, dev, nbytes):
    """The copy bandwidth of `dev` in GB/s, bytes read plus written: a copy of
    `nbytes` bytes, 3 copies first, then the median of 10 timed by `timer`."""
    import torch
    x = torch.empty(nbytes, dtype=torch.uint8, device=dev).random_()
    y = torch.empty_like(x)
    for _ in range(3):
        y.copy_(x)
    ms = statistics.median(timer.times(lambda: y.copy_(x), 10))
    return 2 * nbytes / ms / 1e6
