"""Fixture for the attach test: opens a debugpy port, then loops until told to stop."""
import os
import sys
import time

import debugpy

port = int(sys.argv[1])
stop_file = sys.argv[2]
debugpy.listen(("127.0.0.1", port))
print("listening", flush=True)
counter = 0
while not os.path.exists(stop_file):
    counter += 1
    time.sleep(0.05)
print("done", counter, flush=True)
