#!/usr/bin/env python3
"""Prepares a fresh portal for the Schemathesis run (scripts/schemathesis.sh): what path parameters name.

    schemathesis_setup.py first|rest BASE_URL APP_SERVER DATABASE_URL OUT_DIR SERVER_LOG

`first` signs a user up, adds an authenticator app and passes it (a TOTP code computed here, RFC 6238 with
`hmac`), so that the session is at `aal2` as staff routes ask, exchanges it for a core token and reads the
one-time setup link from the server log; Schemathesis's first phase then claims the platform's first admin
role with it (`POST /api/admin/setup`). `rest` checks that it did, then makes apps (two submitted for
review, one to move), a share link, an image, access tokens, a webhook endpoint with a delivery, a member (also
a reviewer), a second session, open invitations
(their links read from the log, where the portal without SMTP writes each e-mail's link) and spare
organizations. Both write what they made to OUT_DIR/values.json. Only the standard library.
"""

import base64
import hashlib
import hmac
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

STEP, BASE, SERVER, DATABASE_URL, OUT, LOG = sys.argv[1:7]
EMAIL = "schemathesis@example.com"
PASSWORD = "a sufficiently long passphrase 42"
PACKAGE = "com.example.schemathesis"


def call(method, path, body=None, token=None, org=None, headers=None, raw=None):
    """One request; the decoded JSON answer (or None for an empty one). Fails loudly on a non-2xx."""
    sent = {"apikey": "built-in"}
    if body is not None:
        sent["Content-Type"] = "application/json"
    if token:
        sent["Authorization"] = f"Bearer {token}"
    if org:
        sent["x-org-id"] = org
    sent.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
    except urllib.error.HTTPError as error:
        sys.exit(f"schemathesis setup: {method} {path} answered {error.code}: {error.read()[:400]!r}")
    return json.loads(text) if text.strip() else None


def signed_in(email):
    """A new account's core token."""
    access = call("POST", "/auth/v1/signup", {"email": email, "password": PASSWORD})["access_token"]
    return call("POST", "/api/auth/exchange-token", {"supabaseToken": access})["coreToken"]


def invite(core, org, email):
    """Invites `email` into `org`; the invitation's token, from the link the log shows."""
    call("POST", f"/api/orgs/{org}/members", {"email": email, "role": "member"}, core, org)
    pattern = re.compile(r"to=" + re.escape(email) + r".*?link=\S*[?&]token=([0-9A-Za-z_-]+)")
    for _ in range(100):
        found = pattern.findall(open(LOG, encoding="utf-8", errors="replace").read())
        if found:
            return found[-1]
        time.sleep(0.1)
    sys.exit(f"schemathesis setup: no invitation link for {email} in the server log")


def totp(secret):
    """The current six-digit code of a base32 TOTP secret (30-second steps, SHA-1)."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(time.time()) // 30), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def first():
    call("POST", "/auth/v1/signup", {"email": EMAIL, "password": PASSWORD})
    session = call("POST", "/auth/v1/token?grant_type=password", {"email": EMAIL, "password": PASSWORD})
    access = session["access_token"]
    factor = call("POST", "/auth/v1/factors", {"factor_type": "totp", "friendly_name": "st"}, access)
    challenge = call("POST", f"/auth/v1/factors/{factor['id']}/challenge", {}, access)
    raised = call(
        "POST",
        f"/auth/v1/factors/{factor['id']}/verify",
        {"challenge_id": challenge["id"], "code": totp(factor["totp"]["secret"])},
        access,
    )
    core = call("POST", "/api/auth/exchange-token", {"supabaseToken": raised["access_token"]})["coreToken"]
    org = call("GET", "/api/orgs", token=core)["data"][0]["id"]
    # The one-time setup link the server writes to its log while the platform has no admin (README).
    links = re.findall(r"setup-admin\?token=([0-9A-Za-z_-]+)", open(LOG, encoding="utf-8").read())
    if not links:
        sys.exit("schemathesis setup: no setup link in the server log")
    values = {"core": core, "org": org, "access": raised["access_token"], "setup_token": links[-1]}
    json.dump(values, open(os.path.join(OUT, "values.json"), "w"), indent=2)


def rest():
    values = json.load(open(os.path.join(OUT, "values.json")))
    core, org = values["core"], values["org"]
    if not call("GET", "/api/admin/check", token=core)["isAdmin"]:
        sys.exit("schemathesis setup: the first phase did not claim the admin role with the setup link")

    app = {
        "packageName": PACKAGE,
        "name": "Schemathesis app",
        "description": "An app the contract check works on.",
        # The portal itself: the monitor's ping has a registered health URL to reach.
        "publicUrl": BASE,
        "logoURL": "https://schemathesis.example.com/logo.png",
        "permissions": [],
        "hardwareRequirements": [],
    }
    # Publishing asks for the organization's name and contact e-mail.
    call("PUT", f"/api/orgs/{org}", {"name": "Schemathesis", "contactEmail": EMAIL}, core, org)
    call("POST", "/api/dev/apps/register", app, core, org)
    share = call("POST", f"/api/dev/apps/{PACKAGE}/share", {"emails": []}, core, org)
    # An app to move into another organization.
    call("POST", "/api/dev/apps/register", {**app, "packageName": PACKAGE + ".move"}, core, org)
    # Two apps submitted for review: one to approve, one to reject.
    review = {}
    for decision in ("approve", "reject"):
        package = f"{PACKAGE}.{decision}"
        call("POST", "/api/dev/apps/register", {**app, "packageName": package}, core, org)
        call("POST", f"/api/dev/apps/{package}/publish", {}, core, org)
        review[decision] = (package, call("GET", f"/api/admin/apps/{package}", token=core)["updatedAt"])
    # An organization to delete, and one to move the app into.
    spare_orgs = [
        call("POST", "/api/orgs", {"name": name, "contactEmail": EMAIL}, core)["data"]["id"]
        for name in ("Schemathesis spare", "Schemathesis target")
    ]
    token = call("POST", "/api/dev/tokens", {"name": "schemathesis", "scopes": ["apps:read"]}, core)
    org_token = call(
        "POST", "/api/dev/tokens", {"name": "schemathesis org", "orgId": org, "scopes": ["apps:read"]}, core
    )

    boundary = uuid.uuid4().hex
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    form = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"logo.png\"\r\n"
        f"Content-Type: image/png\r\n\r\n"
    ).encode() + png + f"\r\n--{boundary}--\r\n".encode()
    upload = call(
        "POST",
        "/api/dev/images/upload",
        token=core,
        org=org,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        raw=form,
    )
    image = upload["url"].rstrip("/").rsplit("/", 1)[-1]

    # A member to change and remove, and an open invitation to preview and accept (as its invitee).
    member_core = signed_in("member@example.com")
    call("POST", f"/api/orgs/accept/{invite(core, org, 'member@example.com')}", None, member_core)
    members = call("GET", f"/api/orgs/{org}", token=core, org=org)["data"]["members"]
    member = next(m["user"]["id"] for m in members if m["user"]["email"] == "member@example.com")
    invitee_core = signed_in("invitee@example.com")
    invitation = invite(core, org, "invitee@example.com")

    # A webhook endpoint (this portal's own address: the run makes no delivery) with one queued delivery.
    hook = call("POST", f"/api/orgs/{org}/webhooks", {"url": BASE + "/hooks", "events": []}, core, org)["id"]
    delivery = call("POST", f"/api/orgs/{org}/webhooks/{hook}/test", {}, core, org)["deliveryId"]

    # A second sign-in of the same account, for the last phase to sign out: the run's own session stays, so
    # that the cases after the first still reach the operation.
    call("POST", "/auth/v1/token?grant_type=password", {"email": EMAIL, "password": PASSWORD})
    sessions = call("GET", "/api/dev/auth/sessions", token=core)["sessions"]
    other = next(s["id"] for s in sessions if not s["current"])

    # The member is also a reviewer, for the staff list's removal.
    subprocess.run(
        [SERVER, "admin", "grant", "member@example.com", "--role", "reviewer"],
        env={**os.environ, "DATABASE_URL": DATABASE_URL},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # An invitation to resend and rescind.
    invite(core, org, "pending@example.com")

    # Resent an hour ago, so that it may be resent now (at most once per 10 minutes).
    with sqlite3.connect(DATABASE_URL.removeprefix("sqlite://")) as db:
        db.execute(
            "UPDATE org_invites SET expires_at = expires_at - 3600000 WHERE email = 'pending@example.com'"
        )

    values.update({
        "approve_package": review["approve"][0],
        "approve_updated_at": review["approve"][1],
        "reject_package": review["reject"][0],
        "reject_updated_at": review["reject"][1],
        "spare_org": spare_orgs[0],
        "target_org": spare_orgs[1],
        "org_token_id": token_id(org_token),
        "move_package": PACKAGE + ".move",
        "session_id": other,
        "webhook": hook,
        "delivery": delivery,
        "member": member,
        "invitation": invitation,
        "invitee_core": invitee_core,
        "core": core,
        "org": org,
        "package": PACKAGE,
        "share_token": share_token(share),
        "image": image,
        "access_token_id": token_id(token),
        "email": EMAIL,
        "day": time.strftime("%Y-%m-%d", time.gmtime()),
    })
    json.dump(values, open(os.path.join(OUT, "values.json"), "w"), indent=2)
    print(json.dumps({k: v for k, v in values.items() if k not in ("core", "invitee_core", "access")}))


def share_token(answer):
    """The share token from the share link (`…/install/<token>`)."""
    return answer["installUrl"].rstrip("/").rsplit("/", 1)[-1].split("?")[0]


def token_id(answer):
    """The id of a new access token (the answer carries the token once, and its record)."""
    return answer["id"] if "id" in answer else answer["token"]["id"]


if __name__ == "__main__":
    first() if STEP == "first" else rest()
