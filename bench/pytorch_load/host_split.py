"""Where a loaded model's direct call spends its host time on the GPU machine: the module's call
against the C entry alone (the same packed arguments, its ctypes call only), each as host time a
call over 200 calls back to back and as wall time a call over 50, on the default stream and on a
side stream, then the per-call pieces (the current stream, the context, the device guard, an
empty result, the device-error poll) and a cProfile of 200 calls. Every input is zeros of its
shape (dynamic dims 1): the host side does not depend on the values, but the GPU's does (zero
offsets take the masked lookup), so a call bound by the GPU shows the GPU here, not the host.

    python3 bench/pytorch_load/host_split.py MODEL_cuda.so   (EMB_RUNTIME_LIB: the libembrt.so)
"""
import contextlib
import cProfile
import os
import pstats
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import emb_torch  # noqa: E402
from emb_torch import compiled  # noqa: E402


def host(fn, n=200):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    us = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return us


def wall(fn, n=50):
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(True), torch.cuda.Event(True)
    a.record()
    for _ in range(n):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / n * 1e3


def main():
    m = emb_torch.load(sys.argv[1])
    dev = torch.device("cuda")
    ins = [torch.zeros([1 if d is None else d for d in a.shape],
                       dtype=compiled._INPUT_DTYPES[a.dtype_code][0], device=dev)
           for a in m.inputs]
    print("%s: %d inputs, %d results" % (sys.argv[1], len(ins), len(m.results)))

    def guard():
        with torch.cuda.device(dev):
            pass

    for name, stream in (("default stream", None), ("side stream", torch.cuda.Stream())):
        with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext():
            for _ in range(20):  # also leaves the descriptors holding the inputs' pointers
                m(*ins)
            entry = lambda: m._invoke(m._slots)  # noqa: E731
            call = lambda: m(*ins)  # noqa: E731
            print("%-15s host us a call: module %.1f, entry alone %.1f | wall us a call: "
                  "module %.1f, entry alone %.1f" % (name, host(call), host(entry),
                                                     wall(call), wall(entry)))
            rt = m._rt
            ctx = rt.context(dev)
            print("   pieces, us: current_stream %.2f, context %.2f, poll %.2f, torch.empty "
                  "%.2f, device guard %.2f" % (
                      host(lambda: torch.cuda.current_stream(dev), 2000),
                      host(lambda: rt.context(dev), 2000), host(lambda: rt.poll(ctx, "x"), 2000),
                      host(lambda: torch.empty((2048, 1), dtype=torch.float16, device=dev), 2000),
                      host(guard, 2000)))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        m(*ins)
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(10)


if __name__ == "__main__":
    main()
