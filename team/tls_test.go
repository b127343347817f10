package team

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func TestBeyondLoopback(t *testing.T) {
	cases := []struct{ urls, want string }{
		{"nats://127.0.0.1:4222", ""},
		{"nats://localhost:4222,nats://[::1]:4223", ""},
		{"127.0.0.1:4222", ""},
		{"nats://127.0.0.1:4222,nats://nats.example.com:4222", "nats.example.com:4222"},
		{"tls://10.0.0.5:4222", "10.0.0.5:4222"},
	}
	for _, c := range cases {
		got, err := beyondLoopback(c.urls)
		if err != nil || got != c.want {
			t.Errorf("beyondLoopback(%q) = %q, %v; want %q", c.urls, got, err, c.want)
		}
	}
	if _, err := beyondLoopback("nats://"); err == nil {
		t.Error("a URL without a host was accepted")
	}
}

// TestTLSRequiredBeyondLoopback runs real servers, one plain and one with
// TLS, and has the member take them for servers beyond loopback: the plain
// one is refused with what to do, the TLS one is used once team.ca names
// the authority that signed its certificate.
func TestTLSRequiredBeyondLoopback(t *testing.T) {
	old := isLoopback
	isLoopback = func(string) bool { return false }
	t.Cleanup(func() { isLoopback = old })

	plain := runServer(t)
	p := newPeer(t, history(1, 2, "alice"))
	_, err := Connect(context.Background(), p.store, Options{URL: plain.ClientURL(), Name: "core", Projects: []string{p.project}, User: "alice", Host: "host-alice", Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "beyond loopback") || !strings.Contains(err.Error(), "team.ca") {
		t.Fatalf("a plain server beyond loopback was used, or refused without saying why: %v", err)
	}

	caFile, cert := newCA(t)
	s := startServer(t, &server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		TLS: true, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	})

	// Without the CA the certificate is not trusted.
	_, err = Connect(context.Background(), p.store, Options{URL: s.ClientURL(), Name: "core", Projects: []string{p.project}, User: "alice", Host: "host-alice", Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "team.ca") {
		t.Fatalf("an untrusted certificate was accepted, or refused without saying why: %v", err)
	}
	m, err := Connect(context.Background(), p.store, Options{URL: s.ClientURL(), CA: caFile, Name: "core", Projects: []string{p.project}, User: "alice", Host: "host-alice", Version: "test", Embedder: p.emb})
	if err != nil {
		t.Fatalf("the TLS server with team.ca: %v", err)
	}
	defer m.Close()
	if _, err := m.nc.TLSConnectionState(); err != nil {
		t.Fatalf("the connection is not over TLS: %v", err)
	}
	if rep := sync(t, m); rep.Published.Turns != 2 {
		t.Fatalf("published %d turns over TLS, want 2", rep.Published.Turns)
	}
}

// newCA makes a certificate authority and a server certificate it signed
// for 127.0.0.1, and writes the authority's certificate to a PEM file.
func newCA(t *testing.T) (string, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "deja test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "nats"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
}
