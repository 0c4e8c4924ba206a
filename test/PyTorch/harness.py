"""What the PyTorch test scripts share: counted checks, each failure printed, the summary line."""
failures = []
passes = 0


def check(cond, what):
    """Counts a check; a failed one is printed and kept."""
    global passes
    if cond:
        passes += 1
    else:
        failures.append(what)
        print("FAIL", what, flush=True)


def fail(what):
    """A failure found outside a check (an exception a test raised)."""
    failures.append(what)
    print("FAIL", what, flush=True)


def run(name, fn):
    """Runs one test function; an exception it raises is one failure, with its traceback."""
    import traceback
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - reported as a failure, never swallowed
        fail("%s raised %r" % (name, e))
        traceback.print_exc()


def finish():
    """Prints the summary line; the exit status (1 when a check failed)."""
    print("%d passed, %d failed" % (passes, len(failures)))
    return 1 if failures else 0


def parser():
    """The options every script takes: --device (cuda when one answers) and --lib."""
    import argparse

    import torch
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                    choices=["cuda", "cpu"])
    ap.add_argument("--lib", default=None, help="libembrt.so (default: emb_torch's search)")
    return ap


def torch_ops_option(ap):
    """Adds --torch-ops: whether libemb_torch_ops.so must load (required), must not (off) or
    either (any). Call torch_ops_mode(args) after parsing: "off" sets EMB_TORCH_OPS_LIB=off
    before emb_torch looks for the library."""
    ap.add_argument("--torch-ops", default="any", choices=["required", "off", "any"],
                    help="whether libemb_torch_ops.so must load (required), must not (off: sets "
                    "EMB_TORCH_OPS_LIB=off) or either (any)")


def torch_ops_mode(args):
    """args.torch_ops, with EMB_TORCH_OPS_LIB=off set for "off"."""
    import os
    if args.torch_ops == "off":
        os.environ["EMB_TORCH_OPS_LIB"] = "off"
    return args.torch_ops
