#!/usr/bin/env bash
# Issue 35's GPU checks in one call on a lent machine (docs/gpu.md says how to carry what it needs):
# speed at Llama-3-8B's and SmolLM2's shapes (the fused Llama step against transformers' forward), then parity CPU vs GPU
# (random-weight shapes; real models where GROUNDED_RAG_PARITY_MODELS names them).
# Writes under $OUT; prints a short table last.
set -u
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"
TOK=${GROUNDED_RAG_GPU_TOKENIZER:-.gpu/tok}; export GROUNDED_RAG_GPU_TOKENIZER=$TOK
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/card.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/card.txt"
timeout "${BIG_S:-230}" python3 -m grounded_rag.cli bench --shape llama3-8b --model "$TOK" --graphs "${BIG_MODES:-capture,capture_transformers}" \
  --json > "$OUT/llama3-8b.json" 2> "$OUT/llama3-8b.err"; echo "llama3-8b rc=$?"
timeout "${SMALL_S:-90}" python3 -m grounded_rag.cli bench --shape smollm2-135m --model "$TOK" --graphs "${SMALL_MODES:-capture,capture_transformers}" \
  --json > "$OUT/smollm2-135m.json" 2> "$OUT/smollm2-135m.err"; echo "smollm2-135m rc=$?"
timeout "${PARITY_S:-150}" python3 -m pytest -q -s -p no:cacheprovider tests/integration/test_gpu_parity.py \
  -k "${PARITY_K:-random_weight or captured}" > "$OUT/parity.txt" 2>&1; echo "parity rc=$?"
grep -E "(smollm2|gemma3)-|passed|failed|Error" "$OUT/parity.txt" | tail -12
for f in "$OUT"/*.err; do tail -n 3 "$f"; done
python3 - "$OUT" <<'PY'
import json, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    try:
        r = json.loads(path.read_text())
    except ValueError:
        print(path.name, "no report"); continue
    for mode in [k for k, v in r.items() if isinstance(v, dict) and k != "prefill"]:
        m = r.get(mode)
        if isinstance(m, dict) and "error" in m:
            print(r["shape"], mode, m["error"][:600])
        elif isinstance(m, dict):
            print(f"{r['shape']:>13} {mode:>8} std {m['standard_decode_ms_per_token']:.2f} ms/tok, default x{m['default_decode_over_standard']}, "
                  f"grounded x{m['grounded_decode_over_standard']}, prefill x{m['default_prefill_over_standard']}/{m['grounded_prefill_over_standard']}, "
                  f"b32/b1 {m.get('batch32_over_batch1')}, first step {m['standard_first_step_ms']} ms")
    p = r.get("prefill", {})
    print(f"{r['shape']:>13} prefill std {p.get('standard_tree_prefill_ms')} ms; grounded padded x{p.get('grounded_padded_over_standard')} "
          f"tree x{p.get('grounded_tree_over_standard')}; default padded x{p.get('default_padded_over_standard')} tree x{p.get('default_tree_over_standard')}; "
          f"graph first decode +{(r.get('capture') or {}).get('first_decode_extra_ms')} ms")
    print(f"{r['shape']:>13} hf generate {r['hf_generate_decode_ms_per_token']} ms/tok on {r['card']}")
PY
