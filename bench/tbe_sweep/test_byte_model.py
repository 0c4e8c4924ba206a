"""Checks the byte model and the generator on cases worked by hand. Python alone: no numpy, torch.

    python3 bench/tbe_sweep/test_byte_model.py
"""
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import byte_model as bm  # noqa: E402
import gen  # noqa: E402


def close(a, b, rel=1e-9, what=""):
    assert abs(a - b) <= rel * max(abs(a), abs(b), 1e-300), "%s: %r != %r" % (what, a, b)


def test_lookup_by_hand():
    # Two tables, D 4 and 8, f32, B = 2. Table 0 bags [1, 1] and [2]; table 1 bags [] and [5].
    # N = 4 ids, distinct rows: table 0 {1, 2} = 2, table 1 {5} = 1.
    distinct = bm.distinct_exact([[1, 1, 2], [5]])
    assert distinct == [2, 1], distinct
    # rows 2*4*4 + 1*8*4 = 64; ids 4*8 = 32; offsets (2*2+1)*8 = 40; output 2*12*4 = 96.
    assert bm.lookup_bytes([4, 8], distinct, 2, 4, 4, False) == 64 + 32 + 40 + 96
    # weighted: + 4 * 4
    assert bm.lookup_bytes([4, 8], distinct, 2, 4, 4, True) == 64 + 32 + 40 + 96 + 16
    # backward: ids 32 + offsets 40 + gradient 96 + rows both ways (2*4*4 + 2*8*4 = 96... per row):
    # table 0: 2 rows * (2*4*4 + 8) = 80; table 1: 1 row * (2*8*4 + 8) = 72.
    assert bm.backward_bytes([4, 8], distinct, 2, 4, 4, False) == 32 + 40 + 96 + 80 + 72
    assert bm.step_bytes([4, 8], distinct, 2, 4, 4, False) == 232 + 320
    # f16: rows 2*4*2 + 8*2 = 32, output 2*12*2 = 48; weights in f16: 4 * 2.
    assert bm.lookup_bytes([4, 8], distinct, 2, 4, 2, False) == 32 + 32 + 40 + 48
    assert bm.lookup_bytes([4, 8], distinct, 2, 4, 2, True) == 32 + 32 + 40 + 48 + 8
    # f16 backward: gradient 48, rows table 0: 2 * (2*4*2 + 8) = 48, table 1: 2*8*2 + 8 = 40.
    assert bm.backward_bytes([4, 8], distinct, 2, 4, 2, True) == 32 + 40 + 8 + 48 + 48 + 40


def test_distinct_uniform():
    # E = 2, n = 2: both draws equal with probability 1/2, so 1/2 * 1 + 1/2 * 2 = 1.5.
    close(bm.expected_distinct(2, 2), 1.5, what="E2 n2")
    # E = 3, n = 2: 3 * (1 - (2/3)^2) = 5/3.
    close(bm.expected_distinct(3, 2), 5.0 / 3.0, what="E3 n2")
    # one draw: one row; one row: one row.
    close(bm.expected_distinct(1000, 1), 1.0, what="n1")
    close(bm.expected_distinct(1, 50), 1.0, what="E1")
    # large n: every row.
    close(bm.expected_distinct(1000, 10**7), 1000.0, what="saturated")


def test_distinct_against_tbe_train():
    # bench/tbe_train/NOTES.md counted the touched rows of its uniform cases from the drawn ids:
    # 3.08M (T 32, E 1e5, B 16384, L 20) and 14.76M (T 64, E 1e6, B 65536, L 4).
    assert round(32 * bm.expected_distinct(100_000, 16384 * 20) / 1e4) == 308
    assert round(64 * bm.expected_distinct(1_000_000, 65536 * 4) / 1e4) == 1476
    # and the bytes of the first as the sweep counts them: forward 1.93 GB, backward 3.54 GB.
    u = [3.08e6 / 32] * 32
    assert round(bm.lookup_bytes([128] * 32, u, 16384, 16384 * 32 * 20, 4, False) / 1e7) == 193
    assert round(bm.backward_bytes([128] * 32, u, 16384, 16384 * 32 * 20, 4, False) / 1e7) == 354


def test_distinct_zipf_small():
    # E = 2, a = 1.1: p_1 = F(2), p_2 = 1 - F(2); n = 2: 2 - p1^2 - p2^2 distinct on average
    # (1 distinct when both draws are equal, with probability p1^2 + p2^2).
    a = 1.1
    F2 = (2 ** (1 - a) - 1) / (3 ** (1 - a) - 1)
    p = [bm.zipf_prob(2, a, k) for k in (1, 2)]
    close(p[0], F2, 1e-12, "p1")
    close(sum(p), 1.0, 1e-12, "sum p")
    close(bm.expected_distinct(2, 2, a), 2 - F2 ** 2 - (1 - F2) ** 2, 1e-12, "zipf E2 n2")


def test_distinct_zipf_tail():
    # Past HEAD ranks the sum is by quadrature: against the term-by-term sum at E = 3e5.
    E = 300_000
    for a in (1.05, 1.2):
        for n in (10**3, 10**5, 10**7):
            exact = sum(-math.expm1(n * math.log1p(-bm.zipf_prob(E, a, k))) for k in range(1, E + 1))
            close(bm.expected_distinct(E, n, a), exact, 1e-4, "zipf tail a %g n %d" % (a, n))


def test_sampler_matches_model():
    # The sweep's sampler (inverse CDF of the same law, floored) against the model: the exact count
    # of a large draw within a few standard deviations of the expectation.
    rng = random.Random(1)
    E, n, a = 100_000, 200_000, 1.1
    c = math.expm1((1 - a) * math.log(E + 1))
    ranks = [min(int(math.exp(math.log1p(rng.random() * c) / (1 - a))), E) - 1 for _ in range(n)]
    got = bm.distinct_exact([ranks])[0]
    want = bm.expected_distinct(E, n, a)
    assert abs(got - want) < 0.01 * want, (got, want)
    got = bm.distinct_exact([[rng.randrange(E) for _ in range(n)]])[0]
    want = bm.expected_distinct(E, n)
    assert abs(got - want) < 0.01 * want, (got, want)


def test_heavy_mean():
    # L = 1: P(X >= k) for k = 1.. with x_m = 1/3: (1/(3k))^1.5, all below 1.
    want = sum((1.0 / (3 * k)) ** 1.5 for k in range(1, 301))
    close(bm.heavy_mean_length(1), want, 1e-12, "heavy L1")
    # Large L: the cap at 300 bounds it.
    assert bm.heavy_mean_length(300) <= 300
    assert bm.mean_length(7, "fixed") == 7 and bm.mean_length(7, "uniform") == 7


def test_generator():
    a, b = gen.generate(seed=3, count=40), gen.generate(seed=3, count=40)
    assert gen.dumps(a) == gen.dumps(b), "same seed, different configurations"
    assert gen.dumps(a) != gen.dumps(gen.generate(seed=4, count=40))
    budget = gen.HBM_BYTES * gen.HBM_USE
    for c in a["configs"]:
        T = c["T"]
        assert 1 <= T <= 200 and len(c["D"]) == len(c["E"]) == len(c["L"]) == T
        assert c["D"] == sorted(c["D"]) and set(c["D"]) <= set(gen.DIMS)
        assert all(gen.MIN_ROWS <= E <= gen.MAX_ROWS for E in c["E"])
        assert all(1 <= L <= 300 for L in c["L"])
        assert 512 <= c["B"] <= 65536
        assert c["N_expected"] <= gen.MAX_IDS or c["B"] == 512
        assert c["table_bytes"] + c["mem_bytes"] <= budget, "over the device memory"
        assert c["mem_bytes"] <= budget / 2 or c["B"] == 512
        assert not c["weighted"] or c["pooling"] == "sum"
        assert c["ids"] == "uniform" or 1.05 <= c["alpha"] <= 1.2
        fwd, step, _ = bm.expected_bytes(c)
        assert (fwd, step) == (c["forward_bytes_expected"], c["step_bytes_expected"]) and step > fwd


def test_fits():
    """gen.fits against the committed set: all of it on an H200's memory, about two thirds on an
    H100's, and the boundary at table_bytes + mem_bytes + FIT_SLACK_BYTES."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs.json")) as f:
        cs = json.load(f)["configs"]
    h200 = gen.HBM_BYTES - (1 << 30)  # free memory of an H200 with a CUDA context
    h100 = 78 * (1 << 30)
    assert all(gen.fits(c, h200) for c in cs)
    n = sum(gen.fits(c, h100) for c in cs)
    assert 150 <= n < len(cs), n
    c = max(cs, key=lambda c: c["table_bytes"] + c["mem_bytes"])
    need = c["table_bytes"] + c["mem_bytes"] + gen.FIT_SLACK_BYTES
    assert gen.fits(c, need) and not gen.fits(c, need - 1)


def test_committed_file():
    # The committed configs.json is the default seed's, and every configuration fits.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs.json")
    doc = gen.generate()
    with open(path) as f:
        assert f.read() == gen.dumps(doc), "configs.json is not gen.py's default output"
    for c in doc["configs"]:
        assert c["table_bytes"] + c["mem_bytes"] <= gen.HBM_BYTES * gen.HBM_USE, c["id"]


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    tests = [(k, v) for k, v in sorted(globals().items()) if k.startswith("test_")]
    for name, fn in tests:
        if quick and name == "test_committed_file":
            continue
        fn()
        print("ok", name)
    print("PASSED %d" % len(tests))
