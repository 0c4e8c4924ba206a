"""The sparse part of a profiled DLRM step: which kernels belong to it (bench/dlrm_train/dlrm.py,
"Embedding part" in bench/dlrm_train/NOTES.md). No torch import: the profiler's events come in,
with the device types to tell CPU ops from device events, so that the rules are tested on made-up
events on the CPU (test_kernel_split.py).
"""
import collections

# Device-side events that are ranges, not work: user annotations mirrored on the GPU timeline.
ANNOTATION_PREFIXES = ("dlrm::", "## ", "Torch-Compiled Region", "Optimizer.", "ProfilerStep")

# The profiler's own CPU events. CUPTI asks for a new activity buffer inside whatever op is
# running on the thread when one fills ("Activity Buffer Request"), and the profiler can hand
# that event a copy of a kernel the launching op also holds (seen on torch 2.11: a 0.64 ms
# lookup counted twice in a 3-step window). They launch nothing: their kernels are not counted.
PROFILER_EVENTS = ("Activity Buffer Request",)


def split_kernels(events, ops, substrings, emb_kernels, cpu_type, cuda_type):
    """Device time (us) of the sparse part's kernels, of all kernels, and of emb's kernels by
    name, in a profiled window, with the count of kernels and the sparse part's kernels' time by
    name (a Counter).

    A kernel belongs to the CPU op that launched it (CUPTI's correlation, FunctionEvent.kernels),
    and an op's kernels include its children's. The sparse part is every op whose name is in
    `ops` or contains one of `substrings` and has no such ancestor (the backward ops run on the
    autograd engine's thread and are found by name there). User annotations are mirrored on the
    GPU timeline as ranges that span kernels: they are dropped by name, and any device event
    that strictly spans another is dropped as one. `cpu_type`, `cuda_type`: the profiler's
    device types (torch.autograd.DeviceType.CPU, .CUDA)."""
    cpu = [e for e in events if e.device_type == cpu_type and not e.is_async]
    dev = [e for e in events if e.device_type == cuda_type]
    ann = {e.name for e in cpu if getattr(e, "is_user_annotation", False)}
    spans = sorted(dev, key=lambda e: (e.time_range.start, -e.time_range.end))
    for a, b in zip(spans, spans[1:]):
        # Strictly longer: a range around a single kernel has the kernel's own interval, and
        # then neither is dropped here (the names above still drop the known ranges).
        if a.time_range.start <= b.time_range.start and b.time_range.end <= a.time_range.end \
                and a.time_range.elapsed_us() > b.time_range.elapsed_us() and a.name != b.name:
            ann.add(a.name)

    def annotation(name):
        return name in ann or name.startswith(ANNOTATION_PREFIXES)

    def matches(e):
        return e.name in ops or any(s in e.name for s in substrings)

    kernels = collections.Counter()  # the sparse part's kernels: us by name

    def subtree(e):
        if e.name in PROFILER_EVENTS:
            return 0.0
        own = [k for k in e.kernels if not annotation(k.name)]
        for k in own:
            kernels[k.name] += k.duration
        return sum(k.duration for k in own) + sum(subtree(c) for c in e.cpu_children)

    sparse = 0.0
    for e in cpu:
        if not matches(e):
            continue
        p = e.cpu_parent
        while p is not None and not matches(p):
            p = p.cpu_parent
        if p is None:
            sparse += subtree(e)
    real = [e for e in dev if not annotation(e.name)]
    total = sum(e.time_range.elapsed_us() for e in real)
    by_name = sum(e.time_range.elapsed_us() for e in real
                  if any(k in e.name for k in emb_kernels)) if emb_kernels else None
    # No kernel is counted twice: the sparse part's time of each kernel name is at most the
    # device time of that name's events in the window.
    for name, us in kernels.items():
        on_device = sum(e.time_range.elapsed_us() for e in real if e.name == name)
        if us > on_device * 1.001 + 1.0:
            raise RuntimeError("the sparse part holds %.1f us of %s, the device ran %.1f us of it"
                               % (us, name, on_device))
    return sparse, total, by_name, len(real), kernels
