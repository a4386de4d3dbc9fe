#!/bin/sh
# A formatter that never answers: it reads nothing and waits on a child that
# holds its stdout open, so that only killing its whole process group ends it.
# With EDITD_TEST_PIDS set, it appends its own pid and its child's to that file.
sleep 100 &
if [ -n "$EDITD_TEST_PIDS" ]; then echo "$$ $!" >> "$EDITD_TEST_PIDS"; fi
wait
