"""The object-store tests' servers, in one process the test suite owns (object_store_test.cpp).

  s3_test_server.py TRACE_GZ RANK_TRACE_GZ...

Starts, on free ports of 127.0.0.1:
  - moto's S3 server with authentication on (requests must be signed with a key moto knows),
    with a bucket holding TRACE_GZ as plain/trace.json, gz/trace.json.gz and, cut in half,
    cut/trace.json.gz, and the RANK_TRACE_GZs under ranks/; beside them plain/notes.txt and
    plain/deeper/other.json, which a listing of plain/ must leave out;
  - a broken S3 server that answers listings and deletes, and breaks every transfer off halfway:
    an object's body stops after a few bytes and the connection closes (for keys holding "stall"
    it stops after the headers, the connection left open), an upload's connection closes after a
    few bytes.
Prints one JSON line ({"moto": PORT, "broken": PORT, "key": ..., "secret": ...}), then serves
until its standard input closes: the suite's end, however it ends, ends the servers.
"""

import gzip
import json
import logging
import os
import socket
import socketserver
import sys
import threading

# Authentication counts actions: the first three (the IAM user, its policy and its key below) go
# unchecked, every later one must be signed with that key.
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"

import boto3  # noqa: E402  (after the variable, which moto reads at import)
from moto.server import ThreadedMotoServer  # noqa: E402

BUCKET = "advisor-test"
STOP = threading.Event()
EMPTY_LISTING = (
    b'<?xml version="1.0" encoding="UTF-8"?>'
    b'<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
    b"<IsTruncated>false</IsTruncated></ListBucketResult>"
)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class BrokenS3(socketserver.BaseRequestHandler):
    def handle(self):
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            head += chunk
        method, target = head.split(b" ", 2)[:2]
        if method == b"PUT":
            if b"100-continue" in head.lower():
                self.request.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.request.recv(16)  # a few bytes of the upload, then the connection is gone
            return
        if method == b"DELETE":
            self.request.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
            return
        if b"list-type" in target:
            self.request.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n%s"
                % (len(EMPTY_LISTING), EMPTY_LISTING)
            )
            return
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
        if b"stall" in target:
            # Nothing more while the suite lives. (Not even a first byte of the body: curl's
            # speed is an average over 5 s, which a byte sent would keep above 0 that long.)
            STOP.wait(60)
            return
        self.request.sendall(b"[" * 100)


def main():
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request in the test log
    trace = open(sys.argv[1], "rb").read()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    moto.start()
    endpoint = "http://127.0.0.1:%d" % moto._port
    iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="setup", aws_secret_access_key="setup")
    iam.create_user(UserName="advisor")
    iam.put_user_policy(UserName="advisor", PolicyName="s3", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="advisor")["AccessKey"]
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=key["AccessKeyId"],
                      aws_secret_access_key=key["SecretAccessKey"])
    s3.create_bucket(Bucket=BUCKET)
    objects = {
        "plain/trace.json": gzip.decompress(trace),
        "plain/notes.txt": b"not a trace",
        "plain/deeper/other.json": b"{}",
        "gz/trace.json.gz": trace,
        "cut/trace.json.gz": trace[: len(trace) // 2],
    }
    for path in sys.argv[2:]:
        objects["ranks/" + os.path.basename(path)] = open(path, "rb").read()
    for name, body in objects.items():
        s3.put_object(Bucket=BUCKET, Key=name, Body=body)

    broken = socketserver.ThreadingTCPServer(("127.0.0.1", 0), BrokenS3)
    broken.daemon_threads = True
    threading.Thread(target=broken.serve_forever, daemon=True).start()

    print(json.dumps({"moto": moto._port, "broken": broken.server_address[1],
                      "key": key["AccessKeyId"], "secret": key["SecretAccessKey"]}), flush=True)
    sys.stdin.read()
    STOP.set()
    broken.shutdown()
    moto.stop()


if __name__ == "__main__":
    main()
