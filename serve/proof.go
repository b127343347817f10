package serve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
)

// ProofPath is where a server proves it is the one that wrote serve.json:
// POST {"nonce": HEX} answers {"proof": HEX}, the HMAC-SHA256 of the nonce
// under the per-start secret only serve.json (0600, in the 0700 data
// directory) holds. A client asks it on each new connection before it
// sends a query or a token, so a process that took a dead server's port
// learns neither, and its answers are never printed.
const ProofPath = "/v1/proof"

// secretBytes is the size of a server's per-start secret and of a
// client's nonce.
const secretBytes = 32

// NewSecret returns a fresh per-start secret, hex-encoded.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

type proofRequest struct {
	Nonce string `json:"nonce"`
}

type proofAnswer struct {
	Proof string `json:"proof"`
}

// proofOf is the answer to nonce under secret. The label keeps the MAC
// from meaning anything elsewhere.
func proofOf(secret, nonce string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("deja serve proof\x00" + nonce))
	return hex.EncodeToString(mac.Sum(nil))
}

// checkProof reports whether answer is the proof of nonce under secret,
// in time that does not depend on how much of it matches.
func checkProof(secret, nonce, answer string) bool {
	return hmac.Equal([]byte(proofOf(secret, nonce)), []byte(answer))
}

// WithProof answers ProofPath with secret and passes every other request
// to next. It answers without a token: the proof reveals nothing of the
// secret, and a client must know whom it talks to before it sends one.
func WithProof(secret string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ProofPath {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "POST {\"nonce\": HEX} to "+ProofPath)
			return
		}
		var req proofRequest
		err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req)
		if err == nil && (len(req.Nonce) < 2*secretBytes || len(req.Nonce) > 256) {
			err = errors.New("the nonce must be 64 to 256 characters")
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "reading the proof request: "+err.Error())
			return
		}
		writeJSON(w, http.StatusOK, proofAnswer{Proof: proofOf(secret, req.Nonce)})
	})
}
