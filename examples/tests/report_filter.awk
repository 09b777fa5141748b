# report_filter.awk -- keeps only the logger-style report blocks of its input
# (from a `=... REPORT====` line to the blank line after it), without what
# differs from run to run or between Mini and Erlang/OTP: timestamps, pids, the
# lines of stack frames and process sizes, gen_statem's `** Stacktrace`, and OTP's `** Client ... stacktrace`
# part (Mini has no current_stacktrace). Used by kvstore.sh and otp_reports.sh.
/^=[A-Z]+ REPORT==== / { inrep = 1; client = 0; sub(/==== .*/, "===="); print; next }
inrep && /^$/ { inrep = 0; print; next }
!inrep { next }
/^\*\* Client / { client = 1 }
/^\*\* Stacktrace =/ { stack = 1; next }
stack && /^\*\*  |^ / { next }
{ stack = 0 }
client { next }
/in function|in call from|heap_size:|stack_size:|reductions:/ { next }
{ gsub(/<[0-9]+\.[0-9]+\.[0-9]+>/, "<PID>"); print }
