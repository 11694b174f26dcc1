#!/usr/bin/env python3
"""Signature V4 test vectors for the S3 requests symbolicate sends, computed by botocore.

botocore (the AWS SDK for Python's core) signs each request below at a fixed time with
S3SigV4Auth, the signer boto3 uses for S3; the JSON it prints holds every input (method, host,
bucket, raw key, raw query parameters, extra headers, payload, time, region, credentials) and
botocore's canonical request, string to sign and Authorization header. The Swift tests sign the
same inputs and compare, so they run offline against the reference implementation.

Run once and commit the output:
    python3 Tests/ObjectStorageTests/Fixtures/sigv4-vectors.py > Tests/ObjectStorageTests/Fixtures/sigv4-vectors.json
"""
import base64
import datetime
import json
import sys
from unittest import mock

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.utils import percent_encode

ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "FwoGZXIvYXdzEJr//////////wEaDEXAMPLETOKEN+with/slash=and=equals"

CASES = [
    dict(name="get-object", method="GET", scheme="https", host="examplebucket.s3.amazonaws.com",
         bucket=None, key="test.txt", query=[], headers=[("Range", "bytes=0-9")], payload=b"",
         region="us-east-1", time="2013-05-24T00:00:00Z"),
    dict(name="get-path-style-loopback", method="GET", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="builds/v3/0A1B2C3D-arm64.sqlite", query=[], headers=[], payload=b"",
         region="us-east-1", time="2026-12-01T01:02:03Z"),
    dict(name="list-objects-v2-first-page", method="GET", scheme="http", host="localhost:4566",
         bucket="symbols", key="", query=[("list-type", "2"), ("prefix", "team a/builds/"), ("delimiter", "/"),
                                           ("max-keys", "1000")],
         headers=[], payload=b"", region="eu-west-1", time="2026-11-30T23:59:59Z"),
    dict(name="list-objects-v2-continuation", method="GET", scheme="https", host="s3.eu-central-1.amazonaws.com",
         bucket="symbols", key="",
         query=[("list-type", "2"), ("prefix", "p/"),
                ("continuation-token", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=+x/y==")],
         headers=[], payload=b"", region="eu-central-1", time="2026-02-28T12:00:00Z"),
    dict(name="list-objects-v2-start-after-unicode", method="GET", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="", query=[("prefix", "r\u00e9ports/\u65e5\u672c"), ("list-type", "2"),
                                          ("start-after", "a b+c")],
         headers=[], payload=b"", region="us-east-1", time="2026-12-01T00:00:00Z"),
    dict(name="put-object-payload", method="PUT", scheme="https", host="examplebucket.s3.amazonaws.com",
         bucket=None, key="test$file.text", query=[],
         headers=[("x-amz-storage-class", "REDUCED_REDUNDANCY")],
         payload=b"Welcome to Amazon S3.", region="us-east-1", time="2013-05-24T00:00:00Z"),
    dict(name="put-object-create-only", method="PUT", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="builds/v3/UUID-arm64.sqlite", query=[],
         headers=[("If-None-Match", "*"), ("Content-Type", "application/octet-stream")],
         payload=bytes(range(256)) * 4, region="us-west-2", time="2026-07-04T08:09:10Z"),
    dict(name="head-object", method="HEAD", scheme="https", host="s3.us-west-2.amazonaws.com",
         bucket="my-bucket", key="reports/2026/x.ips", query=[], headers=[], payload=b"",
         region="us-west-2", time="2026-01-01T00:00:00Z"),
    dict(name="delete-object", method="DELETE", scheme="http", host="127.0.0.1:5000",
         bucket="symbols", key="reports/abc", query=[], headers=[], payload=b"",
         region="us-east-1", time="2026-03-15T10:20:30Z"),
    dict(name="key-with-spaces-and-reserved", method="GET", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="My App/Crash Report (1)+[x]&y=z;~!*'@#$%.crash", query=[], headers=[],
         payload=b"", region="us-east-1", time="2026-12-01T00:00:00Z"),
    dict(name="key-with-unicode", method="PUT", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="r\u00e9sum\u00e9/\u65e5\u672c\u8a9e/\U0001F4A5.txt", query=[], headers=[],
         payload="caf\u00e9".encode(), region="us-east-1", time="2026-12-01T00:00:00Z"),
    dict(name="key-with-double-slash-and-dots", method="GET", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="a//b/./c/../d", query=[], headers=[], payload=b"",
         region="us-east-1", time="2026-12-01T00:00:00Z"),
    dict(name="session-token", method="GET", scheme="https", host="s3.ap-southeast-2.amazonaws.com",
         bucket="b", key="k", query=[], headers=[], payload=b"", region="ap-southeast-2",
         time="2026-12-01T00:00:00Z", token=SESSION_TOKEN),
    dict(name="session-token-put", method="PUT", scheme="http", host="minio.internal:9000",
         bucket="b", key="dir/file name.bin", query=[], headers=[("If-None-Match", "*")],
         payload=b"\x00\x01\x02 binary", region="auto", time="2026-12-01T00:00:00Z", token=SESSION_TOKEN),
    dict(name="header-values-trimmed", method="PUT", scheme="http", host="127.0.0.1:9000",
         bucket="symbols", key="meta", query=[],
         headers=[("Content-Type", "  text/plain;   charset=utf-8  "), ("x-amz-meta-Origin", "import  from   cli")],
         payload=b"{}", region="us-east-1", time="2026-12-01T00:00:00Z"),
]


class RecordingSigner(botocore.auth.S3SigV4Auth):
    """S3SigV4Auth that keeps the canonical request and string to sign it computed."""

    def canonical_request(self, request):
        self.canonical = super().canonical_request(request)
        return self.canonical

    def string_to_sign(self, request, canonical_request):
        self.string_to_sign_seen = super().string_to_sign(request, canonical_request)
        return self.string_to_sign_seen


def sign(case):
    if case["bucket"] is None:
        path = "/" + percent_encode(case["key"], safe="/~")
    elif case["key"]:
        path = "/" + case["bucket"] + "/" + percent_encode(case["key"], safe="/~")
    else:
        path = "/" + case["bucket"]
    url = "%s://%s%s" % (case["scheme"], case["host"], path)
    request = AWSRequest(method=case["method"], url=url, data=case["payload"],
                         params=list(case["query"]), headers=dict(case["headers"]))
    credentials = Credentials(ACCESS_KEY, SECRET_KEY, case.get("token"))
    signer = RecordingSigner(credentials, "s3", case["region"])
    when = datetime.datetime.strptime(case["time"], "%Y-%m-%dT%H:%M:%SZ")
    with mock.patch("botocore.auth.get_current_datetime", return_value=when):
        signer.add_auth(request)
    canonical, string_to_sign = signer.canonical, signer.string_to_sign_seen
    return dict(
        name=case["name"], method=case["method"], scheme=case["scheme"], host=case["host"],
        bucket=case["bucket"], key=case["key"], query=[list(q) for q in case["query"]],
        headers=[list(h) for h in case["headers"]],
        payloadBase64=base64.b64encode(case["payload"]).decode(), region=case["region"], time=case["time"],
        accessKeyID=ACCESS_KEY, secretAccessKey=SECRET_KEY, sessionToken=case.get("token"),
        canonicalRequest=canonical, stringToSign=string_to_sign,
        authorization=request.headers["Authorization"],
        payloadHash=request.headers["X-Amz-Content-SHA256"],
    )


json.dump(dict(generator="botocore " + botocore.__version__, vectors=[sign(c) for c in CASES]),
          sys.stdout, indent=1, ensure_ascii=True)
sys.stdout.write("\n")
