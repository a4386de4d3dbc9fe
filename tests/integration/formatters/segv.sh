#!/bin/sh
# A formatter that dies of a signal before it reads a byte (editd's write to
# its stdin then fails: a broken pipe that must not end editd).
kill -SEGV $$
