package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// VerifyMareaSignature checks an X-Service-Signature header against the raw request body
// (read it with io.ReadAll(r.Body) before decoding). secret is the endpoint's signingSecret.
func VerifyMareaSignature(rawBody []byte, header, secret string, tolerance time.Duration) bool {
	var timestamp string
	var signatures []string
	for _, part := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(part, "=")
		switch key {
		case "t":
			timestamp = value
		case "v1":
			signatures = append(signatures, value)
		}
	}
	t, err := strconv.ParseUint(timestamp, 10, 63)
	if err != nil {
		return false
	}
	age := time.Since(time.Unix(int64(t), 0))
	if age > tolerance || age < -tolerance {
		return false
	}
	// The key is the secret's 64 hex characters as ASCII bytes (not hex-decoded).
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	for _, v1 := range signatures {
		given, err := hex.DecodeString(v1)
		if err == nil && hmac.Equal(given, expected) {
			return true
		}
	}
	return false
}

// func handler(w http.ResponseWriter, r *http.Request) {
// 	body, _ := io.ReadAll(r.Body)
// 	if !VerifyMareaSignature(body, r.Header.Get("X-Service-Signature"), os.Getenv("MAREA_SIGNING_SECRET"), 5*time.Minute) {
// 		w.WriteHeader(http.StatusUnauthorized)
// 		return
// 	}
// 	// json.Unmarshal(body, &event); skip event.EventID if already processed; answer within 5 seconds
// 	w.WriteHeader(http.StatusNoContent)
// }
