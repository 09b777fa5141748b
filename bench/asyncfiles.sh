#!/bin/bash
# asyncfiles.sh [PROCS FILES KB] -- the async-threads benchmark (not a test):
# examples/asyncfiles.mini with +S 2 and +A 0, 1, 2, 4. For each: the median
# time of the jobs over RUNS runs (as the program reports it on standard
# error: from the first command to the last answer, so writing the files is
# left out), jobs per second, then RUNS runs under `strace -f -c`
# for the wake-up system calls per job (the median run's) (futex, sched_yield, poll/epoll waits,
# eventfd and pipe reads/writes). strace traces only those calls
# (--seccomp-bpf -e trace=...): traced, every read of the files stopped its
# thread for the tracer and a job took 2-7 ms instead of 0.3, which changed
# the very batching being counted. Run from the repository root on a quiet
# machine (check `uptime`); results go into docs/benchmarks.md by hand.
set -u
MINI=${MINI:-bin/mini}
RUNS=${RUNS:-5}
P=${1:-96}; F=${2:-34}; K=${3:-600}
jobs=$((P * F))
WAKE_CALLS=futex,sched_yield,poll,ppoll,epoll_wait,epoll_pwait
echo "asyncfiles $P x $F x $K KB ($jobs jobs), +S 2; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %12s %12s %14s  %s\n' "+A" "median ms" "jobs/s" "wakeups/job" "calls (futex sched_yield poll/epoll)"
for a in 0 1 2 4; do
  ts=()
  for r in $(seq "$RUNS"); do
    us=$("$MINI" +S 2 +A $a examples/asyncfiles.mini $P $F $K 2>&1 >/dev/null |
         sed -n 's/^asyncfiles: [0-9]* jobs in \([0-9]*\) us$/\1/p')
    [ -n "$us" ] || { echo "run failed"; exit 1; }
    ts+=($(( us / 1000 )))
  done
  med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  # the calls of RUNS traced runs; the run with the median total is shown
  # (one run's count moves by +-15% with where the batches happen to fall)
  counts=()
  for r in $(seq "$RUNS"); do
    st=$(strace -f -c --seccomp-bpf -e trace="$WAKE_CALLS" -o /dev/stdout "$MINI" +S 2 +A $a examples/asyncfiles.mini $P $F $K 2>/dev/null)
    calls() { printf '%s\n' "$st" | awk -v n="$1" '$NF == n { c = $4 } END { print c + 0 }'; }
    fu=$(calls futex); sy=$(calls sched_yield)
    po=$(( $(calls poll) + $(calls ppoll) + $(calls epoll_wait) + $(calls epoll_pwait) ))
    # reads and writes of eventfds and pipes: Mini uses none for wake-ups, and
    # the file reads of the work itself are not counted (read is the job)
    fu=${fu:-0}; sy=${sy:-0}
    counts+=("$((fu + sy + po)) $fu $sy $po")
  done
  read -r total fu sy po < <(printf '%s\n' "${counts[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  printf '%-6s %12s %12s %14s  %s\n' "$a" "$med" "$(( jobs * 1000 / (med > 0 ? med : 1) ))" \
    "$(awk -v t=$total -v j=$jobs 'BEGIN { printf "%.4f", t / j }')" "$fu $sy $po"
done

# The same files read by Erlang/OTP, for the wake-up calls per read: 96
# processes each read the 34 files once with file:read_file (bench/readfiles.mini,
# whose files are lines of about 1.5 KB, so the count of reads matches, not
# the text); erl +S 2, OTP's own file I/O (dirty I/O schedulers; +A does not
# take part in file reading since OTP 21).
if command -v erl >/dev/null && command -v erlc >/dev/null; then
  tmp=$(mktemp -d)
  cp bench/readfiles.mini "$tmp/readfiles.erl"
  if erlc -o "$tmp" "$tmp/readfiles.erl"; then
    reads=$((P * 34))
    st=$(strace -f -c --seccomp-bpf -e trace="$WAKE_CALLS,read,write" -o /dev/stdout erl +S 2 -noshell -pa "$tmp" \
         -eval "readfiles:main([\"1\", \"$P\"]), halt()." 2>/dev/null)
    calls() { printf '%s\n' "$st" | awk -v n="$1" '$NF == n { c = $4 } END { print c + 0 }'; }
    fu=$(calls futex); sy=$(calls sched_yield)
    po=$(( $(calls poll) + $(calls ppoll) + $(calls epoll_wait) + $(calls epoll_pwait) ))
    # erl wakes its schedulers through pipes/eventfds as well: counted too
    rw=$(( $(calls read) + $(calls write) ))
    total=$((fu + sy + po))
    printf 'erl    %12s %12s %14s  %s  (+ %s read/write calls in all, file reads included)\n' "-" "-" \
      "$(awk -v t=$total -v j=$reads 'BEGIN { printf "%.4f", t / j }')" "$fu $sy $po" "$rw"
  fi
  rm -rf "$tmp"
fi
