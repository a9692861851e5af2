<?php

/**
 * Verifies a Marea webhook delivery. $rawBody: the request body exactly as received
 * (file_get_contents('php://input')); $header: X-Service-Signature; $secret: the endpoint's signingSecret.
 */
function verify_marea_signature(string $rawBody, string $header, string $secret, int $tolerance = 300): bool
{
    $timestamp = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        [$key, $value] = array_pad(explode('=', $part, 2), 2, '');
        if ($key === 't') {
            $timestamp = $value;
        } elseif ($key === 'v1') {
            $signatures[] = $value;
        }
    }
    if ($timestamp === null || preg_match('/^[0-9]+$/', $timestamp) !== 1) {
        return false;
    }
    if (abs(time() - (int) $timestamp) > $tolerance) {
        return false;
    }
    // The key is the secret's 64 hex characters as ASCII bytes (not hex-decoded).
    $expected = hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret);
    foreach ($signatures as $v1) {
        if (hash_equals($expected, $v1)) {
            return true;
        }
    }
    return false;
}

// $raw = file_get_contents('php://input');
// if (!verify_marea_signature($raw, $_SERVER['HTTP_X_SERVICE_SIGNATURE'] ?? '', getenv('MAREA_SIGNING_SECRET'))) {
//     http_response_code(401);
//     exit;
// }
// $event = json_decode($raw, true); // skip $event['eventId'] if already processed; answer within 5 seconds
// http_response_code(204);
