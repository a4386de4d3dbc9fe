#!/bin/sh
# A formatter that reads its input and prints bytes that are not UTF-8.
cat > /dev/null
printf 'x = 1\n\377\376 latin-1 \351t\351\n'
