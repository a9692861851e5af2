import hashlib
import hmac
import re
import time


def verify_marea_signature(raw_body: bytes, header: str, secret: str, tolerance: int = 300) -> bool:
    """raw_body: the request body exactly as received; header: X-Service-Signature; secret: signingSecret."""
    timestamp, signatures = None, []
    for part in (header or "").split(","):
        key, _, value = part.partition("=")
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if not timestamp or not re.fullmatch(r"[0-9]+", timestamp):
        return False
    if abs(time.time() - int(timestamp)) > tolerance:
        return False
    # The key is the secret's 64 hex characters as ASCII bytes (not hex-decoded).
    signed = timestamp.encode("ascii") + b"." + raw_body
    expected = hmac.new(secret.encode("ascii"), signed, hashlib.sha256).hexdigest().encode("ascii")
    return any(hmac.compare_digest(expected, v1.encode("utf-8")) for v1 in signatures)


# With Flask:
# @app.post("/webhooks/marea")
# def marea_webhook():
#     if not verify_marea_signature(request.get_data(), request.headers.get("X-Service-Signature", ""), SECRET):
#         abort(401)
#     event = request.get_json()  # skip event["eventId"] if already processed; answer within 5 seconds
#     return "", 204
