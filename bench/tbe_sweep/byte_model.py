"""The least bytes a TBE lookup and a training step must move through device memory.

A configuration (gen.py) is T tables, table t with E[t] rows of D[t] elements of `esize` bytes, one
feature a table, B bags a feature, ids and offsets int64; the per-sample weights (when weighted) and
the output [B, sum of D] and its gradient are in the tables' dtype (torch's embedding_bag takes
weights of the table's dtype only).

Forward (one launch): each distinct (table, row) the batch touches read once, every id, every offset
and every per-sample weight read once, the output written once:

    forward = sum_t distinct[t] * D[t] * esize + N * 8 + (T * B + 1) * 8 + [N * esize]
              + B * sum(D) * esize

Training step with exact rowwise Adagrad (the forward, then the backward and optimizer, one launch):
the backward reads the ids, offsets and weights again and the output's gradient once, and reads and
writes each distinct row and its state (one float32 a row) once:

    backward = N * 8 + (T * B + 1) * 8 + [N * esize] + B * sum(D) * esize
               + sum_t distinct[t] * (2 * D[t] * esize + 2 * 4)
    step = forward + backward

Mean pooling moves nothing more (a bag's count comes from its offsets). Nothing else is a floor: the
sort of the keys, the gradient gather and any workspace are the implementation's cost, not the
problem's.

distinct[t] is counted from the drawn ids when they exist (distinct_exact, what the sweep uses), or
expected from the id distribution (expected_distinct, what gen.py writes for planning):
    E[distinct] = sum over rows k of 1 - (1 - p_k)^n   (row k is missed by all n independent draws
                                                      with probability (1 - p_k)^n)
uniform: p_k = 1/E, so E * (1 - (1 - 1/E)^n) exactly. Zipf: the sweep draws ranks from the bounded
power law of exponent alpha on [1, E + 1) (inverse CDF, floored), so p_k = F(k + 1) - F(k) with
F(x) = (x^(1-a) - 1) / ((E + 1)^(1-a) - 1); the sum is taken term by term over the first HEAD ranks
and, past them, by the trapezoid rule on a geometric grid: the terms decrease with k, so the tail
sum lies between the integrals over [HEAD + 1, E + 1] and [HEAD, E], whose difference is the first
tail term (below 1 row). n is the table's expected number of ids (B times the mean bag length), which
is exact for fixed lengths; for random lengths (1 - p)^n is convex in n, so this slightly
overestimates the mean count. Only the sweep's exact counts enter bw_fraction.
"""
import math

INDEX_BYTES = 8   # int64 ids (TorchRec's default)
OFFSET_BYTES = 8  # int64 offsets
STATE_BYTES = 4   # rowwise Adagrad: one float32 a row
ESIZE = {"fp16": 2, "fp32": 4}
HEAD = 1024        # ranks summed term by term in expected_distinct
TAIL_POINTS = 1000  # the tail's quadrature grid


def lookup_bytes(dims, distinct, B, N, esize, weighted):
    """Bytes of one forward launch. dims, distinct: per table; N: ids in all."""
    rows = sum(d * u for d, u in zip(dims, distinct)) * esize
    return rows + _inputs(len(dims), B, N, esize, weighted) + B * sum(dims) * esize


def backward_bytes(dims, distinct, B, N, esize, weighted):
    """Bytes of one backward + rowwise Adagrad launch: inputs, gradient, rows and state both ways."""
    rows = sum(u * (2 * d * esize + 2 * STATE_BYTES) for d, u in zip(dims, distinct))
    return rows + _inputs(len(dims), B, N, esize, weighted) + B * sum(dims) * esize


def step_bytes(dims, distinct, B, N, esize, weighted):
    return (lookup_bytes(dims, distinct, B, N, esize, weighted)
            + backward_bytes(dims, distinct, B, N, esize, weighted))


def _inputs(T, B, N, esize, weighted):
    return N * INDEX_BYTES + (T * B + 1) * OFFSET_BYTES + (N * esize if weighted else 0)


def distinct_exact(ids_per_table):
    """Distinct rows of each table from its drawn ids (iterables of ints: lists, tensors)."""
    return [len(set(int(i) for i in ids)) for ids in ids_per_table]


def _zipf_cdf(x, E, a):
    """F(x) of the bounded power law on [1, E + 1): the fraction of draws below rank x."""
    b = 1.0 - a
    return math.expm1(b * math.log(x)) / math.expm1(b * math.log(E + 1.0))


def zipf_prob(E, a, k):
    """p_k for rank k (1-based, or a real k on the tail's grid): F(k + 1) - F(k)."""
    return _zipf_cdf(k + 1.0, E, a) - _zipf_cdf(k, E, a)


def _hit(p, n):
    """1 - (1 - p)^n: the chance that a row of probability p is drawn at least once in n."""
    return -math.expm1(n * math.log1p(-min(p, 1.0 - 1e-16)))


def expected_distinct(E, n, alpha=None):
    """Expected distinct rows among n draws from E rows, uniform (alpha None) or Zipf(alpha)."""
    if n <= 0:
        return 0.0
    if alpha is None:
        return E * _hit(1.0 / E, n) if E > 1 else 1.0
    head = min(E, HEAD)
    total = sum(_hit(zipf_prob(E, alpha, k), n) for k in range(1, head + 1))
    if E > head:
        # Tail ranks head+1..E: trapezoid on a geometric grid of k, the term taken as a function
        # of continuous k, plus half the end terms (Euler-Maclaurin: sum = integral + ends / 2).
        m = TAIL_POINTS
        lo, hi = float(head + 1), float(E)
        ks = [lo * (hi / lo) ** (i / (m - 1)) for i in range(m)]
        g = [_hit(zipf_prob(E, alpha, k), n) for k in ks]
        total += sum((g[i] + g[i + 1]) * (ks[i + 1] - ks[i]) for i in range(m - 1)) / 2.0
        total += (g[0] + g[-1]) / 2.0
    return min(total, float(E), float(n))


def heavy_mean_length(L, shape=1.5, cap=300):
    """Mean of min(floor(L * X), cap) for X Pareto(shape) with mean 1 (x_m = (shape - 1) / shape):
    sum over k = 1..cap of P(L * X >= k) = min(1, (x_m * L / k)^shape)."""
    xm = (shape - 1.0) / shape
    return sum(min(1.0, (xm * L / k) ** shape) for k in range(1, cap + 1))


def mean_length(L, kind):
    """The mean bag length of a table of pooling factor L and length distribution kind."""
    if kind == "heavy":
        return heavy_mean_length(L)
    return float(L)  # fixed: L; uniform: integers 0..2L, mean L


def expected_bytes(cfg):
    """(forward, step, expected distinct rows) of a configuration of gen.py, from expectations."""
    B, esize = cfg["B"], ESIZE[cfg["dtype"]]
    alpha = cfg["alpha"] if cfg["ids"] == "zipf" else None
    ns = [B * mean_length(L, k) for L, k in zip(cfg["L"], cfg["lengths"])]
    distinct = [expected_distinct(E, n, alpha) for E, n in zip(cfg["E"], ns)]
    N = sum(ns)
    fwd = lookup_bytes(cfg["D"], distinct, B, N, esize, cfg["weighted"])
    step = step_bytes(cfg["D"], distinct, B, N, esize, cfg["weighted"])
    return int(fwd), int(step), int(sum(distinct))
