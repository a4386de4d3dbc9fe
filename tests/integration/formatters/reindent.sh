#!/bin/sh
# A formatter that rewrites every line: each non-empty line gains two leading
# spaces, a change of whitespace alone (format_scope makes each such line a
# hunk of its own, so an edit takes over only its own lines).
exec sed '/./s/^/  /'
