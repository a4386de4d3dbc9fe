#!/bin/sh
# A formatter that reads its input, says why it failed on stderr (then 100 KB
# more of it, which editd must cut to an excerpt) and exits 3.
cat > /dev/null
echo boom >&2
head -c 100000 /dev/zero | tr '\0' x >&2
exit 3
