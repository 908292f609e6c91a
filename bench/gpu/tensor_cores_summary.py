"""Summarizes bench/gpu/tensor_cores' all.jsonl as a markdown table: for each
matmul row (dtype, size) and attention row (head_dim, causal), each
provider's best TFLOP/s over the rounds, and the ratios Tessera/Triton and
Tessera/(cuBLAS or SDPA).

    python3 tensor_cores_summary.py all.jsonl
"""
import json
import sys


def row_key(rec):
    if rec["kind"] == "matmul":
        return ("matmul", rec["dtype"], rec["M"])
    return ("attention", rec["D"], rec["causal"])


def shape_text(key):
    if key[0] == "matmul":
        return "%s %d" % (key[1], key[2])
    return "bf16 d=%d%s" % (key[1], " causal" if key[2] else "")


def main(path):
    best = {}
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "tflops" not in rec:
                continue
            k = row_key(rec) + (rec["provider"],)
            if k not in best or rec["tflops"] > best[k]["tflops"]:
                best[k] = rec

    def tflops(rec):
        return "%.1f" % rec["tflops"] if rec else "-"

    def ratio(a, b):
        return "%.2f" % (a["tflops"] / b["tflops"]) if a and b else "-"

    print("| kernel | shape | Tessera | Triton | cuBLAS/SDPA | Tessera/Triton | Tessera/ref |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for key in sorted({k[:-1] for k in best}):
        ours, triton = best.get(key + ("tessera",)), best.get(key + ("triton",))
        ref = best.get(key + ("cublas",)) or best.get(key + ("sdpa",))
        print("| %s | %s | %s | %s | %s | %s | %s |" % (key[0], shape_text(key), tflops(ours), tflops(triton),
                                                       tflops(ref), ratio(ours, triton), ratio(ours, ref)))


if __name__ == "__main__":
    main(sys.argv[1])
