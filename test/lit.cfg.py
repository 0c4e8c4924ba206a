# The emb lit suite (check-emb). One folder per source folder:
#   Dialect/  op round trips and *_invalid.mlir verifier cases
#   Passes/   one test per pass, named after it
#   Codegen/  lowering and end-to-end runs
#   Tools/    emb-opt and emb-run behaviour (flags, files, errors); the
#             PyTorch/ emb_torch against PyTorch (torch; cuda-gpu for the GPU runs)
#   CAPI/     the C library, from C
#   Runtime/  runtime unit tests on the CPU (self-checking executables)
#   Kernels/  GPU tests against the CPU reference (REQUIRES: cuda-gpu), and the
#             launch-configuration tables' CPU tests
#   Format/   clang-format cleanliness
#
# Features: emb-compiler (the MLIR half was built), cuda (kernels built),
# cuda-gpu (kernels built and a GPU answers), cuda-gpus-2 (a second GPU
# answers: emb-run --ranks 2), nccl (the CUDA collectives run on NCCL),
# clang-format, mlir-opt (the
# stock MLIR tool, which loads emb's plugin), torch (the configured Python
# has PyTorch 2.4 or newer).
import os
import re
import subprocess
import sys

import lit.formats

config.name = "emb"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".c", ".cu", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "gpu_probe.c",
                   "abi_layout.c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.emb_obj_root, "test")

# Tools: ours first, then LLVM's (FileCheck, not, count).
path = [config.emb_tools_dir]
if config.llvm_tools_dir and os.path.isdir(config.llvm_tools_dir):
    path.append(config.llvm_tools_dir)
path.append(config.environment.get("PATH", os.environ.get("PATH", "")))
config.environment["PATH"] = os.pathsep.join(path)
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
for var in ("CUDA_VISIBLE_DEVICES", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

test_bin = os.path.join(config.emb_obj_root, "test")
config.substitutions.append(("%emb_src_root", config.emb_src_root))
config.substitutions.append(("%emb_obj_root", config.emb_obj_root))
config.substitutions.append(("%runtime_test_dir", os.path.join(test_bin, "Runtime")))
config.substitutions.append(("%kernel_test_dir", os.path.join(test_bin, "Kernels")))
config.substitutions.append(("%capi_test_dir", os.path.join(test_bin, "CAPI")))
config.substitutions.append(("%examples", os.path.join(config.emb_src_root, "examples")))
config.substitutions.append(("%emb_tools_dir", config.emb_tools_dir))
config.substitutions.append(("%emb_lib_dir", os.path.join(config.emb_obj_root, "lib")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%clang_format", config.clang_format))
# Tools/install: a project built against the installed emb uses the same
# CMake, generator and C compiler as this build, and pkg-config.
config.substitutions.append(("%cmake_generator", '"%s"' % config.cmake_generator))
config.substitutions.append(("%make_program", config.make_program))
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%cc", config.c_compiler))
# emb's version (project() in CMakeLists.txt, emb/version.h) and the compiled
# ABI's (EMB_ABI_VERSION in emb/compiled.h), and the next ABI version, which
# no runtime of this build implements.
config.substitutions.append(("%emb_version", config.emb_version))
with open(os.path.join(config.emb_src_root, "include", "emb", "compiled.h")) as f:
    abi_version = int(re.search(r"#define EMB_ABI_VERSION (\d+)", f.read()).group(1))
config.substitutions.append(("%emb_abi_version", str(abi_version)))
config.substitutions.append(("%emb_abi_next", str(abi_version + 1)))
pkg_config = config.pkg_config
if not pkg_config or not os.path.exists(pkg_config):
    pkg_config = "pkg-config"  # fails naming the missing tool
config.substitutions.append(("%pkg_config", pkg_config))

# The sanitizer configuration (EMB_SANITIZE, docs/reliability.md): every
# report fails its test. A report aborts the process (abort_on_error), so a
# tool that reports under `not` dies of SIGABRT, which `not` counts as a
# failure; leaks are reported at exit; an allocation too large for ASan's
# allocator returns NULL as malloc does without ASan, so that emb's own
# checks of it are what is tested.
if config.emb_sanitize:
    config.environment["ASAN_OPTIONS"] = (
        "abort_on_error=1:detect_leaks=1:allocator_may_return_null=1")
    config.environment["UBSAN_OPTIONS"] = (
        "print_stacktrace=1:halt_on_error=1:abort_on_error=1")

# Python that loads emb's libraries through ctypes: in the sanitizer
# configuration their runtimes are preloaded (Python is not built with them)
# and Python's own allocations left at exit are not reported.
ctypes_python = config.python_executable
if config.emb_sanitize:
    ctypes_python = "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 %s" % (
        config.emb_sanitizer_runtimes, ctypes_python)
config.substitutions.append(("%ctypes_python", ctypes_python))
# What a C program that links emb's libraries adds to its link: the
# sanitizers' runtimes in the sanitizer configuration.
config.substitutions.append(("%emb_link_flags",
    "-fsanitize=address,undefined" if config.emb_sanitize else ""))

if config.emb_have_compiler:
    config.available_features.add("emb-compiler")
    # The stock MLIR tool, for the plugin (tools/emb-plugin). It is not
    # built with the sanitizers, so the sanitizer configuration preloads
    # their runtimes for the plugin's sake.
    mlir_opt = os.path.join(config.llvm_tools_dir or "", "mlir-opt")
    if os.path.exists(mlir_opt):
        config.available_features.add("mlir-opt")
        if config.emb_sanitize:
            mlir_opt = "env LD_PRELOAD=%s %s" % (config.emb_sanitizer_runtimes,
                                                 mlir_opt)
        config.substitutions.append(("%mlir_opt", mlir_opt))
    config.substitutions.append(
        ("%emb_plugin", os.path.join(config.emb_obj_root, "lib", "libEmbPlugin.so")))
    # The CUDA toolkit's libdevice, which generated GPU kernels link for math
    # functions (codegen/gpu/binary.c looks in the same places).
    for root in [os.environ.get(v) for v in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]:
        if root and os.path.exists(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")):
            config.available_features.add("libdevice")
            break
# clang-format: the configured one is the major version the tree is
# formatted with (test/Format/check_format.py, PINNED_MAJOR); another one
# would judge its own layout, not the code's, so the Format test is then
# unsupported, with a warning that says why.
if config.clang_format and os.path.exists(config.clang_format):
    sys.path.insert(0, os.path.join(config.emb_src_root, "test", "Format"))
    from check_format import version_problem
    problem = version_problem(config.clang_format)
    sys.path.pop(0)
    if problem:
        lit_config.warning("test/Format/clang_format.test is unsupported: %s"
                           % problem)
    else:
        config.available_features.add("clang-format")


def gpu_answers(ordinal=0):
    """True when the CUDA runtime can make a context here on GPU `ordinal`."""
    probe = os.path.join(test_bin, "emb-gpu-probe")
    if not os.path.exists(probe):
        return False
    try:
        return subprocess.run([probe, str(ordinal)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def python_runs(code):
    try:
        return subprocess.run([config.python_executable, "-c", code],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if config.emb_have_cuda:
    config.available_features.add("cuda")
    if config.emb_have_nccl:
        config.available_features.add("nccl")
    if gpu_answers():
        config.available_features.add("cuda-gpu")
        # Two GPUs: emb-run --ranks 2 (NCCL runs one rank a GPU).
        if gpu_answers(1):
            config.available_features.add("cuda-gpus-2")
    lit_config.note("GPU tests (cuda-gpu): %s" %
                    ("run" if "cuda-gpu" in config.available_features
                     else "unsupported here: no GPU answers"))
# torch: the configured Python has a PyTorch that emb_torch runs on (torch.library.custom_op,
# PyTorch 2.4 and newer); test/PyTorch runs on the CPU with it, and on the GPU with cuda-gpu too.
if python_runs("import torch; torch.library.custom_op"):
    config.available_features.add("torch")
# emb_torch's C++ ops (libemb_torch_ops.so, built when the configured Python has torch): the
# PyTorch tests load the build's, and test_compiled.py requires it (%emb_torch_ops: required);
# without it they run with none (off), so that an installed one cannot stand in.
if config.emb_have_torch_ops:
    config.environment["EMB_TORCH_OPS_LIB"] = os.path.join(
        config.emb_obj_root, "lib", "libemb_torch_ops.so")
    config.substitutions.append(("%emb_torch_ops", "required"))
else:
    config.environment["EMB_TORCH_OPS_LIB"] = "off"
    config.substitutions.append(("%emb_torch_ops", "off"))
