#!/usr/bin/env python3
"""advisor analyze on one trace read locally and from a local S3 server (moto's, through
tests/object_store/s3_test_server.py), twice each: time and peak RSS, to show that reading from a
bucket costs the copy's time and no memory of the object's size (docs/benchmarks.md).

    object_store_read.py ADVISOR TRACE.json [TRACE.json.gz ...]

Needs moto's virtualenv (scripts/s3-test-server.sh). Prints one line per run.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    advisor, traces = sys.argv[1], sys.argv[2:]
    python = subprocess.run([os.path.join(ROOT, "scripts", "s3-test-server.sh")],
                            capture_output=True, text=True, check=True).stdout.split()[-1]
    fixture = os.path.join(ROOT, "tests/data/traces/torch-1.13-cpu/single/mnist_style-stack.json.gz")
    # The server puts the traces after the first under ranks/ by their file names.
    server = subprocess.Popen(
        [python, os.path.join(ROOT, "tests/object_store/s3_test_server.py"), fixture] + traces,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ports = json.loads(server.stdout.readline())
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ports["key"], AWS_SECRET_ACCESS_KEY=ports["secret"],
               AWS_ENDPOINT_URL="http://127.0.0.1:%d" % ports["moto"], AWS_REGION="us-east-1")
    out = os.path.join(os.environ.get("TMPDIR", "/var/tmp"), "advisor-object-store-bench")
    try:
        for trace in traces:
            for source in (trace, "s3://advisor-test/ranks/" + os.path.basename(trace)):
                for _ in range(2):
                    run = subprocess.run(["/usr/bin/time", "-f", "%e s, peak RSS %M KB", advisor,
                                          "analyze", source, "--out", out, "-q"],
                                         env=env, capture_output=True, text=True)
                    print(source, "exit", run.returncode, run.stderr.strip().splitlines()[-1],
                          flush=True)
    finally:
        server.stdin.close()
        server.wait()


if __name__ == "__main__":
    main()
