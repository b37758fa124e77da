#!/usr/bin/env bash
# Builds the outside proof checkers the proof tests and the README run: drat-trim and
# lrat-check (DRAT and LRAT) and cake_lpr (LRAT/LPR, verified in CakeML), with gcc, in a few
# seconds.
#
#   tools/proof-checkers.sh SRC_DIR [OUT_DIR]   from sources laid out as
#       SRC_DIR/drat-trim/drat-trim.c, SRC_DIR/drat-trim/lrat-check.c,
#       SRC_DIR/cake_lpr/cake_lpr.S, SRC_DIR/cake_lpr/basis_ffi.c (cake_lpr.sha256 optional)
#   tools/proof-checkers.sh --clone [OUT_DIR]   from clones of the public repositories at the
#       commits below (needs git and the network)
#
# OUT_DIR defaults to target/proof-checkers under the repository. The script prints the three
# paths and the line that puts them on PATH. cake_lpr.S is x86-64 assembly that the CakeML
# compiler generated; its sha256 is checked against the one pinned here (and against
# SRC_DIR/cake_lpr/cake_lpr.sha256 where there is one) before it is assembled.
set -euo pipefail

DRAT_TRIM_REPO=https://github.com/marijnheule/drat-trim
DRAT_TRIM_COMMIT=effa1dcce85c878236f8313133dff1a2b766cd7c
CAKE_LPR_REPO=https://github.com/tanyongkiam/cake_lpr
CAKE_LPR_COMMIT=a4323b203cc9ecd584ba7da9e3fff08135a09d5f
# cake_lpr.S at that commit.
CAKE_LPR_S_SHA256=2f3af32d55083839b3fa0e693afd817679c0b8944bef41def05a8b0ec72b7d4a

usage() {
    echo "usage: $0 SRC_DIR [OUT_DIR]   or   $0 --clone [OUT_DIR]" >&2
    echo "  (SRC_DIR holds drat-trim/{drat-trim.c,lrat-check.c} and cake_lpr/{cake_lpr.S,basis_ffi.c})" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$repo/target/proof-checkers}
command -v gcc >/dev/null || { echo "$0: gcc is needed (apt-get install gcc)" >&2; exit 1; }

if [ "$1" = "--clone" ]; then
    command -v git >/dev/null || { echo "$0: --clone needs git" >&2; exit 1; }
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    clone() { # DIR REPO COMMIT
        if ! git clone -q "$2" "$src/$1" || ! git -C "$src/$1" checkout -q "$3"; then
            echo "$0: could not clone $2 at $3 (no network, or the commit is gone)." >&2
            echo "  Nothing was built. Give a folder with the sources instead: $0 SRC_DIR [OUT_DIR]" >&2
            exit 1
        fi
    }
    clone drat-trim "$DRAT_TRIM_REPO" "$DRAT_TRIM_COMMIT"
    clone cake_lpr "$CAKE_LPR_REPO" "$CAKE_LPR_COMMIT"
else
    src=$1
    [ -d "$src" ] || { echo "$0: $src is not a folder" >&2; usage; }
fi

for f in drat-trim/drat-trim.c drat-trim/lrat-check.c cake_lpr/cake_lpr.S cake_lpr/basis_ffi.c; do
    [ -f "$src/$f" ] || { echo "$0: $src/$f is missing" >&2; exit 1; }
done

have=$(sha256sum "$src/cake_lpr/cake_lpr.S" | cut -d' ' -f1)
if [ -f "$src/cake_lpr/cake_lpr.sha256" ]; then
    listed=$(awk '$2 == "cake_lpr.S" {print $1}' "$src/cake_lpr/cake_lpr.sha256")
    [ "$listed" = "$have" ] || { echo "$0: cake_lpr.S does not match $src/cake_lpr/cake_lpr.sha256" >&2; exit 1; }
fi
if [ "$have" != "$CAKE_LPR_S_SHA256" ]; then
    echo "$0: cake_lpr.S has sha256 $have, not the $CAKE_LPR_S_SHA256 of cake_lpr $CAKE_LPR_COMMIT" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
gcc -O2 -o "$out/drat-trim" "$src/drat-trim/drat-trim.c" -lm
gcc -O2 -o "$out/lrat-check" "$src/drat-trim/lrat-check.c" -lm
gcc -O2 -o "$out/cake_lpr" "$src/cake_lpr/basis_ffi.c" "$src/cake_lpr/cake_lpr.S"
printf '%s\n' "$out/drat-trim" "$out/lrat-check" "$out/cake_lpr"
echo "put them on PATH with: export PATH=\"$out:\$PATH\"" >&2
