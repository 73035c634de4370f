#!/usr/bin/env python3
"""The statuses each operation reached in the Schemathesis run (from its HAR reports), and the check that the
run reached the logic: an operation that never answered anything but 401, 403 or 404 fails it, and so does one
whose document promises a success (2xx) that the run never saw.

    schemathesis_statuses.py OPENAPI_JSON HAR...
"""

import json
import re
import sys
import urllib.parse

document = json.load(open(sys.argv[1]))
operations = []
promises_success = set()
for path, item in document["paths"].items():
    pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
    for method in item:
        if method in ("get", "put", "post", "delete", "patch"):
            operations.append((method.upper(), path, pattern))
            if any(str(status).startswith("2") for status in item[method].get("responses", {})):
                promises_success.add((method.upper(), path))

reached = {(method, path): set() for method, path, _ in operations}
for har in sys.argv[2:]:
    for entry in json.load(open(har))["log"]["entries"]:
        method = entry["request"]["method"]
        path = urllib.parse.urlsplit(entry["request"]["url"]).path
        status = entry["response"]["status"]
        for op_method, op_path, pattern in operations:
            if op_method == method and pattern.match(path):
                reached[(op_method, op_path)].add(status)
                break

walled, unsuccessful = [], []
print("statuses reached, per operation:")
for (method, path), statuses in sorted(reached.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"  {method:6} {path:55} {' '.join(str(s) for s in sorted(statuses)) or 'none'}")
    if not statuses - {401, 403, 404}:
        walled.append(f"{method} {path}")
    elif (method, path) in promises_success and not any(200 <= s < 300 for s in statuses):
        unsuccessful.append(f"{method} {path}")
if walled:
    print("schemathesis: these operations never answered outside 401/403/404 (the run did not reach them):")
    for operation in walled:
        print(f"  - {operation}")
if unsuccessful:
    print("schemathesis: these operations never answered the success their document promises:")
    for operation in unsuccessful:
        print(f"  - {operation}")
if walled or unsuccessful:
    sys.exit(1)
print(f"schemathesis: all {len(reached)} operations answered outside 401/403/404, each with a success it documents")
