#!/bin/sh
# A formatter that reads nothing and prints 200 MiB, past any --max-file-bytes.
yes | head -c 200M
