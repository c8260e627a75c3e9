#!/usr/bin/env bash
# Cyclone DDS 0.10.2 Python binding (the real G1 speaks 0.10.x; the 11.x wheel cannot talk to it) built against
# Debian's cyclonedds-dev, then the Unitree SDK repackage without its deps (it would pull opencv-python beside
# opencv-python-headless). Idempotent: keeps a stamp under $STAMPS.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
STAMPS=${STAMPS:-$ROOT/.stamps}
STAMP=$STAMPS/cyclonedds-0.10.2+unitree-1.0.3
[ -f "$STAMP" ] && exit 0
PIP="$ROOT/.venv/bin/pip"
HOME_DIR="$STAMPS/cyclonedds_home"  # symlinks: where the 0.10.2 build finds Debian's headers, libs and idlc
mkdir -p "$HOME_DIR"
ln -sfn /usr/include "$HOME_DIR/include"
ln -sfn /usr/lib/x86_64-linux-gnu "$HOME_DIR/lib"
ln -sfn /usr/bin "$HOME_DIR/bin"
CYCLONEDDS_HOME="$HOME_DIR" "$PIP" install -q -c "$ROOT/constraints.txt" cyclonedds==0.10.2
"$PIP" install -q --no-deps unitree-sdk2py-dimos==1.0.3
mkdir -p "$STAMPS" && touch "$STAMP"
echo "[setup] cyclonedds 0.10.2 + unitree-sdk2py-dimos 1.0.3 installed"
