"""kernel_split.split_kernels on made-up profiler events (plain Python, on the CPU): the sparse
part's kernels found through its ops, a kernel that the profiler also hands to its own event
counted once, annotations and spanning ranges left out, and a double count refused.

    python3 bench/dlrm_train/test_kernel_split.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_split import split_kernels  # noqa: E402

CPU, CUDA = "cpu", "cuda"


class Range:
    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


class Kernel:  # an entry of FunctionEvent.kernels
    def __init__(self, name, duration):
        self.name, self.duration = name, duration


class Event:  # the FunctionEvent fields split_kernels reads
    def __init__(self, name, device_type, start=0, end=0, kernels=(), parent=None):
        self.name, self.device_type = name, device_type
        self.is_async = False
        self.time_range = Range(start, end)
        self.kernels = list(kernels)
        self.cpu_children = []
        self.cpu_parent = parent
        if parent is not None:
            parent.cpu_children.append(self)


def window(with_buffer_request=True):
    """One step: emb's lookup op (its kernel 640 us) with the profiler's buffer request inside it
    holding a copy of that kernel, emb's backward op under an autograd node (a sort and the
    update), a dense GEMM, and a user range mirrored on the device spanning the lookup."""
    fwd = Event("emb::tbe_forward_train", CPU, kernels=[Kernel("tbeForwardKernel", 640.0)])
    if with_buffer_request:
        Event("Activity Buffer Request", CPU, kernels=[Kernel("tbeForwardKernel", 640.0)],
              parent=fwd)
    node = Event("GeneratedBackwardFor_emb", CPU)
    bwd = Event("emb::tbe_backward_rowwise_adagrad", CPU, parent=node,
                kernels=[Kernel("DeviceRadixSortOnesweepKernel", 150.0)])
    Event("aten::empty", CPU, parent=bwd, kernels=[Kernel("shortRunsKernel", 1700.0)])
    mm = Event("aten::mm", CPU, kernels=[Kernel("gemm", 300.0)])
    dev = [Event("dlrm::sparse_forward", CUDA, 0, 700),  # a user range on the device
           Event("tbeForwardKernel", CUDA, 10, 650),
           Event("DeviceRadixSortOnesweepKernel", CUDA, 700, 850),
           Event("shortRunsKernel", CUDA, 850, 2550),
           Event("gemm", CUDA, 2550, 2850)]
    return [fwd, node, mm] + [e for e in (fwd.cpu_children + node.cpu_children +
                                          bwd.cpu_children)] + dev


def main():
    ops = ("emb::tbe_forward_train", "emb::tbe_backward_rowwise_adagrad")
    sparse, total, by_name, count, kernels = split_kernels(
        window(), ops, (), ("tbeForward", "shortRuns", "Onesweep"), CPU, CUDA)
    assert sparse == 640 + 150 + 1700, sparse
    assert total == 640 + 150 + 1700 + 300, total
    assert by_name == 640 + 150 + 1700, by_name
    assert count == 4, count
    assert kernels == {"tbeForwardKernel": 640.0, "DeviceRadixSortOnesweepKernel": 150.0,
                       "shortRunsKernel": 1700.0}, kernels
    print("ok the buffer request's copy of the lookup is not counted")

    # The same window where an op itself holds the lookup twice: refused, not recorded.
    events = window(with_buffer_request=False)
    events[0].kernels.append(Kernel("tbeForwardKernel", 640.0))
    try:
        split_kernels(events, ops, (), (), CPU, CUDA)
    except RuntimeError as e:
        assert "tbeForwardKernel" in str(e) and "1280.0" in str(e), e
        print("ok a kernel counted twice raises:", e)
    else:
        raise AssertionError("a double count passed")
    print("PASSED")


if __name__ == "__main__":
    main()
