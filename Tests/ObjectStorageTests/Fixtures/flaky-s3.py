#!/usr/bin/env python3
"""A tiny S3-shaped HTTP server for the client's retry, redirect and signature tests.

Usage: flaky-s3.py PARENT_PID [CERT KEY]  (prints the port it listens on, on 127.0.0.1, then
serves until PARENT_PID is gone; with a certificate and key, over TLS, removing both and their
folder when it exits). Every request must carry a Signature V4 that botocore computes the same way
from what arrived on the wire (keys AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY,
region us-east-1); otherwise it answers 403 InvalidAccessKeyId (another key) or SignatureDoesNotMatch. Paths:
  /symbols/flaky-N/...  503 SlowDown for the first N requests to that path, then 200
  /moved/REST           307 to /symbols/REST
  /downgrade/REST       307 to http://HOST/symbols/REST (plain HTTP)
  /symbols/hang/...     200 after 5 seconds (for timeouts)
  /symbols?list-type=2  200, an empty listing
  /symbols/...          200; the body is the request's path and query
  anything else         404 NoSuchBucket
"""
import datetime
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
failures = {}
lock = threading.Lock()


def error(code, message):
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message>"
            "<RequestId>flaky-1</RequestId></Error>" % (code, message)).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def signature_matches(self, body):
        authorization = self.headers.get("Authorization", "")
        try:
            signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
            when = datetime.datetime.strptime(self.headers["x-amz-date"], "%Y%m%dT%H%M%SZ")
        except (IndexError, KeyError, ValueError):
            return False
        headers = {name: self.headers[name] for name in signed if name != "host" and name in self.headers}
        headers["Host"] = self.headers["Host"]
        request = AWSRequest(method=self.command, url="http://%s%s" % (self.headers["Host"], self.path),
                             data=body, headers=headers)
        signer = botocore.auth.S3SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "s3", "us-east-1")
        with mock.patch("botocore.auth.get_current_datetime", return_value=when):
            signer.add_auth(request)
        return request.headers["Authorization"] == authorization

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if "Credential=%s/" % ACCESS_KEY not in self.headers.get("Authorization", ""):
            return self.answer(403, error("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."))
        if not self.signature_matches(body):
            return self.answer(403, error("SignatureDoesNotMatch", "botocore computes another signature"))
        path = self.path.split("?")[0]
        if path.startswith("/downgrade/"):
            target = "http://%s/symbols/%s" % (self.headers["Host"], self.path[len("/downgrade/"):])
            return self.answer(307, headers=[("Location", target)])
        if path.startswith("/moved/"):
            return self.answer(307, headers=[("Location", "/symbols/" + self.path[len("/moved/"):])])
        if path != "/symbols" and not path.startswith("/symbols/"):
            return self.answer(404, error("NoSuchBucket", "The specified bucket does not exist"))
        if path.startswith("/symbols/hang/"):
            time.sleep(5)
        if "list-type=2" in self.path:
            return self.answer(200, b"<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>")
        parts = path.split("/")
        if len(parts) > 2 and parts[2].startswith("flaky-"):
            with lock:
                seen = failures.get(path, 0)
                failures[path] = seen + 1
            if seen < int(parts[2][len("flaky-"):]):
                return self.answer(503, error("SlowDown", "Please reduce your request rate."))
        self.answer(200, self.path.encode(), headers=[("ETag", '"flaky-etag"')])

    do_GET = do_PUT = do_HEAD = do_DELETE = handle_any


def watch(parent, leftovers):
    while True:
        try:
            os.kill(parent, 0)
        except OSError:
            for path in leftovers:
                try:
                    os.remove(path) if os.path.isfile(path) else os.rmdir(path)
                except OSError:
                    pass
            os._exit(0)
        time.sleep(0.5)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if len(sys.argv) > 3:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
# The test's certificate folder goes with the server.
leftovers = sys.argv[2:4] + [os.path.dirname(sys.argv[2])] if len(sys.argv) > 3 else []
threading.Thread(target=watch, args=(int(sys.argv[1]), leftovers), daemon=True).start()
print(server.server_address[1], flush=True)
server.serve_forever()
