"""A stand-in for emb-opt, emb-run and emb-compile in the tests of emb-fuzz:
what it does depends on words planted in its input, so that a test knows
which crash the harness must find, and whether reduction kept it.

  planted_segv    dies of SIGSEGV
  planted_abort   dies of SIGABRT
  planted_asan    prints an AddressSanitizer report and exits 1
  planted_ubsan   prints an UndefinedBehaviorSanitizer report and exits 1
  planted_report  prints emb's crash report and exits 1
  planted_hang    sleeps for a minute
  planted_flaky   dies of SIGSEGV the first time only (FAKE_STATE: a
                  folder where it notes that it did), as a run that timed
                  out on a busy machine would
  planted_stderr  prints a crash report's words in an ordinary error
  planted_one_side, planted_update, planted_result, planted_both
                  (with --compare-unoptimized) prints emb-run's verdict of
                  a comparison where only the model as written fails, an
                  argument updated in place differs, a result differs, or
                  both sides fail (which agrees), and exits 1

A model of the compare target (a generated one: `// emb-fuzz: generator
G, variant V`) is accepted when V is valid or returned, refused otherwise.

Otherwise it exits 0 if the brackets of its input balance and its --inputs
are .npy files of version 1.0, 1 with an error if not (FAKE_ALWAYS_OK=1:
always 0). --list-passes lists two
passes, one with an option.
"""
import os
import re
import signal
import sys
import time

tool = os.path.basename(sys.argv[0])[:-len(".py")]
if "--list-passes" in sys.argv:
    print("emb passes and pipelines:")
    print("  --fake-pass                    A pass")
    print("  --fake-pipeline                (pipeline) A pipeline")
    print("                                   size=<int>: a size (default 0)")
    sys.exit(0)
path = next((a for a in sys.argv[1:] if a.endswith(".mlir")), None)
text = open(path).read() if path else ""
if "planted_segv" in text:
    os.kill(os.getpid(), signal.SIGSEGV)
if "planted_abort" in text:
    os.kill(os.getpid(), signal.SIGABRT)
if "planted_asan" in text:
    sys.stderr.write("=================================================================\n"
                     "==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018\n"
                     "    #0 0x7f0000001234 in __interceptor_memcpy\n"
                     "    #1 0x7f0000005678 in embrtCpuTbeForward\n")
    sys.exit(1)
if "planted_ubsan" in text:
    sys.stderr.write("runtime/cpu/tbe.c:42:7: runtime error: signed integer overflow: "
                     "9223372036854775807 + 1 cannot be represented in type 'long'\n")
    sys.exit(1)
if "planted_report" in text:
    sys.stderr.write("%s: internal error: SIGSEGV (segmentation fault) while running "
                     "the pass pipeline\n  command:  %s\n  pipeline: fake-pass\n"
                     % (tool, " ".join(sys.argv)))
    sys.exit(1)
if "planted_hang" in text:
    time.sleep(60)
if "planted_flaky" in text:
    mark = os.path.join(os.environ["FAKE_STATE"], "flaky-crashed")
    if not os.path.exists(mark):
        open(mark, "w").close()
        os.kill(os.getpid(), signal.SIGSEGV)
if "planted_stderr" in text:
    sys.stderr.write("%s: error: the input says 'internal error' and 'SIGSEGV'\n" % tool)
    sys.exit(1)
VERDICTS = {
    "planted_one_side": "outcome of @f: succeeded\n"
    "outcome of @f as written: error: EMBRT_OUT_OF_RANGE: bag 0: offsets\n"
    "outcomes: only @f as written reports an error: MISMATCH (a rewrite may "
    "not make a valid model fail, nor an invalid one succeed)\n",
    "planted_update": "result #0 tensor<2xf32>: max abs diff 0, max rel diff "
    "0 against @f as written (atol 0.0001 x max |value| 1, rtol 0.0001): ok\n"
    "argument #2 (%table) tensor<4x2xf32>, updated in place: max abs diff "
    "0.5, max rel diff 1 against @f as written (atol 0.0001 x max |value| "
    "1, rtol 0.0001): MISMATCH\n"
    "  argument #2 (%table) differs at [1, 0]: 0.5 vs 1; it started at 0.5 "
    "(@f left it as it was)\n",
    "planted_result": "result #0 tensor<2xf32>: max abs diff 1, max rel diff "
    "1 against @f as written (atol 0.0001 x max |value| 1, rtol 0.0001): "
    "MISMATCH\n  first mismatch at element 1: 1 vs 2\n",
    "planted_both": "outcome of @f: error: EMBRT_OUT_OF_RANGE: a\n"
    "outcome of @f as written: error: EMBRT_OUT_OF_RANGE: b\n"
    "outcomes: both sides report an error: they agree (errors on both sides "
    "agree, whatever each message says)\n",
}
if "--compare-unoptimized" in sys.argv:
    for word, verdict in VERDICTS.items():
        if word in text:
            sys.stdout.write(verdict)
            sys.exit(1)
generated = re.search(r"^// emb-fuzz: generator \w+, variant (\w+)", text,
                      re.M)
if generated and generated.group(1) not in ("valid", "returned"):
    sys.stderr.write("%s: error: fake: refused variant %s\n" % (
        tool, generated.group(1)))
    sys.exit(1)
if os.environ.get("FAKE_ALWAYS_OK") == "1":
    sys.exit(0)
if "--inputs" in sys.argv:
    for name in sys.argv[sys.argv.index("--inputs") + 1].split(","):
        if open(name, "rb").read(8) != b"\x93NUMPY\x01\x00":
            sys.stderr.write("%s: error: '%s' is not a .npy file of version 1.0\n" % (tool, name))
            sys.exit(1)
depth = 0
for ch in text:
    depth += ch in "([{"
    depth -= ch in ")]}"
    if depth < 0:
        break
if depth != 0:
    sys.stderr.write("%s: error: unbalanced brackets\n" % tool)
    sys.exit(1)
sys.exit(0)
