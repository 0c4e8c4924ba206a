# Variants of the kernels: a kernels/<source> compiled again with other values
# of its knobs (the #ifndef defaults at the top of the source, documented in
# docs/kernels/<family>.md). Every variant is declared here once; bench/ and
# test/Kernels build the ones they use, and nothing else builds them (their
# objects are EXCLUDE_FROM_ALL, so the default target and `make example` never
# compile them).
#
# A benchmark links every variant of a source, each with <suffix macro>=_<name>
# (below) appended to its entry points, and times it in the same run as the
# library's kernel (bench/tbe/tbe_bench.cu and bench/tbe_train/
# tbe_train_bench.cu list the same names: a name missing here is a link error
# there). A GPU test links one variant without the suffix, in place of the
# library's object: it defines every entry point of that object, so the linker
# never takes the library's from the archive.
#
# Measured and dropped variants are in bench/<family>/NOTES.md, with the commit
# that last holds their code.

include_guard(DIRECTORY)

# One row per variant: name, source (under kernels/), defines (comma-separated).
set(EMB_KERNEL_VARIANTS
  # Every TBE forward launch on the 64-bit-position kernels, which only
  # launches with N >= 2^31 (or a table of 2^31 rows) take otherwise; also
  # the GPU test tbe_pos64.
  pos64    tbe.cu           EMB_TBE_POS32=0
  # One line of every 64 KB of the table prefetched into L2 at the start of
  # small launches (bench/tbe/NOTES.md call 8: within noise).
  pfpages  tbe.cu           EMB_TBE_PREFETCH_PAGES=16
  # The per-run pipeline at 2 accumulate CTAs an SM (128 registers) instead
  # of 3.
  mb2      tbe_backward.cu  EMB_TBE_BWD_OCC=0,EMB_TBE_BWD_MIN_BLOCKS=2
  # The default's short-run kernel at 8 CTAs an SM (32 registers) instead of
  # 6.
  occ      tbe_backward.cu  EMB_TBE_BWD_OCC_BLOCKS=8
  # Short runs by the accumulate kernel's per-run pipeline, the default
  # before call 6 (bench/tbe_train/NOTES.md); also the GPU test
  # tbe_backward_pipe.
  pipe     tbe_backward.cu  EMB_TBE_BWD_OCC=0
  # The short-run kernel as it was before EMB_TBE_BWD_SHORT_LEAN: every run's
  # table searched for, every run gathered in batches; also the GPU test
  # tbe_backward_plain.
  plain    tbe_backward.cu  EMB_TBE_BWD_SHORT_LEAN=0
  # Rowwise Adagrad's short-run kernel reading its state's precision at run
  # time (EMB_TBE_BWD_STATE_FIXED=0), the default before it was fixed at
  # compile time; also the GPU test tbe_backward_state_stateruntime.
  stateruntime  tbe_backward.cu  EMB_TBE_BWD_STATE_FIXED=0
  # Packed rows of quantized tables split among a group's lanes by their
  # elements instead of as stored (EMB_TBE_PACKED_LANES in
  # kernels/tbe_forward.cuh); also the GPU test tbe_packed_data.
  packed_data  tbe_quantized.cu  EMB_TBE_PACKED_LANES=1
  # Packed rows of int8, int4 and fp8 tables in 8-byte chunks a lane instead
  # of 16 (EMB_TBE_PACKED_VEC; half the values a lane, fewer registers:
  # docs/kernels/tbe_quantized.md); also the GPU test tbe_packed_vec8.
  packed_vec8  tbe_quantized.cu  EMB_TBE_PACKED_VEC=8
  )

# The macro each source appends to its entry points' names.
set(EMB_KERNEL_SUFFIX_MACRO_tbe EMB_TBE_SUFFIX)
set(EMB_KERNEL_SUFFIX_MACRO_tbe_backward EMB_TBE_BWD_SUFFIX)

# emb_kernel_variants(<out-var> <source> <prefix> [SUFFIXED] [NAMES name...])
#
# Adds an object library <prefix>-<family>-<name>-kernels (underscores as
# dashes, EXCLUDE_FROM_ALL) for each variant of kernels/<source>: those named,
# or all of them. SUFFIXED appends _<name> to their entry points. Sets
# <out-var> to the targets, in table order; link them into the program that
# uses them (target_link_libraries).
function(emb_kernel_variants out source prefix)
  cmake_parse_arguments(ARG "SUFFIXED" "" "NAMES" ${ARGN})
  get_filename_component(family ${source} NAME_WE)
  set(targets "")
  set(found "")
  list(LENGTH EMB_KERNEL_VARIANTS n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 3)
    math(EXPR j "${i} + 1")
    math(EXPR k "${i} + 2")
    list(GET EMB_KERNEL_VARIANTS ${i} name)
    list(GET EMB_KERNEL_VARIANTS ${j} variantSource)
    list(GET EMB_KERNEL_VARIANTS ${k} defs)
    if(NOT variantSource STREQUAL source)
      continue()
    endif()
    if(ARG_NAMES AND NOT name IN_LIST ARG_NAMES)
      continue()
    endif()
    list(APPEND found ${name})
    string(REPLACE "," ";" defs ${defs})
    if(ARG_SUFFIXED)
      list(APPEND defs ${EMB_KERNEL_SUFFIX_MACRO_${family}}=_${name})
    endif()
    string(REPLACE "_" "-" target ${prefix}-${family}-${name}-kernels)
    add_library(${target} OBJECT EXCLUDE_FROM_ALL
      ${PROJECT_SOURCE_DIR}/kernels/${source})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${target} PRIVATE ${defs})
    target_link_libraries(${target} PRIVATE CUDA::cudart)
    list(APPEND targets ${target})
  endforeach()
  foreach(name ${ARG_NAMES})
    if(NOT name IN_LIST found)
      message(FATAL_ERROR "no variant ${name} of kernels/${source} in "
        "kernels/variants.cmake")
    endif()
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# emb_kernel_variant(<source-var> <defines-var> <name>)
#
# Sets <source-var> to the source (under kernels/) of variant <name> and
# <defines-var> to its defines (a list), for a program that is built with
# them itself (test/Kernels/tbe_meta.cu reads kernels/tbe_forward.cuh's host
# half with a variant's knobs).
function(emb_kernel_variant source_out defines_out name)
  list(FIND EMB_KERNEL_VARIANTS ${name} i)
  math(EXPR r "${i} % 3")
  if(i LESS 0 OR NOT r EQUAL 0)
    message(FATAL_ERROR "no variant ${name} in kernels/variants.cmake")
  endif()
  math(EXPR j "${i} + 1")
  math(EXPR k "${i} + 2")
  list(GET EMB_KERNEL_VARIANTS ${j} source)
  list(GET EMB_KERNEL_VARIANTS ${k} defs)
  string(REPLACE "," ";" defs ${defs})
  set(${source_out} ${source} PARENT_SCOPE)
  set(${defines_out} ${defs} PARENT_SCOPE)
endfunction()
