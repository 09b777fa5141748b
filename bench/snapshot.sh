# bench/snapshot.sh -- sourced by bench/run.sh and bench/matrix.sh.
#
# snapshot_mini NAME DIR EXTRA...: others may rebuild bin/mini while a
# benchmark runs, so it measures a copy of $MINI in DIR/snap/bin with the
# stdlib/ (and EXTRA folders, e.g. examples) it finds beside it; a binary
# missing or unusable for a moment is being rebuilt: wait up to a minute.
# Sets MINI_SRC (the original) and MINI (the copy). NAME prefixes errors.
snapshot_mini() {
  name=$1; dir=$2; shift 2
  MINI_SRC=$MINI
  mkdir -p "$dir/snap/bin"
  for i in $(seq 1 12); do
    [ -x "$MINI" ] && cp "$MINI" "$dir/snap/bin/mini" 2>/dev/null && "$dir/snap/bin/mini" --version >/dev/null 2>&1 && break
    rm -f "$dir/snap/bin/mini"; sleep 5
  done
  [ -x "$dir/snap/bin/mini" ] || { echo "$name: $MINI not built or not working (run make)" >&2; exit 2; }
  for extra in stdlib "$@"; do
    cp -r "$(dirname "$MINI")/../$extra" "$dir/snap/" || { echo "$name: cannot snapshot $MINI" >&2; exit 2; }
  done
  MINI=$dir/snap/bin/mini
}
