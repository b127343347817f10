package team

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
)

// isLoopback reports whether host (a name or an address) is this machine
// by loopback; tests replace it to stand for a server beyond it.
var isLoopback = func(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// beyondLoopback returns the first server of urls (comma-separated, as
// nats.Connect takes them) that is not on loopback, "" when all are.
func beyondLoopback(urls string) (string, error) {
	for _, raw := range strings.Split(urls, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if !strings.Contains(raw, "://") {
			raw = "nats://" + raw
		}
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" {
			return "", fmt.Errorf("team: team.url %q is not a server URL: use nats://HOST:PORT or tls://HOST:PORT", raw)
		}
		if !isLoopback(u.Hostname()) {
			return u.Host, nil
		}
	}
	return "", nil
}

// tlsOptions are the connection options TLS asks for: required toward
// any server beyond loopback (the turns and the credentials cross a
// network), verified against the system's roots or ca, the team.ca file.
func tlsOptions(urls, ca string) ([]nats.Option, string, error) {
	host, err := beyondLoopback(urls)
	if err != nil {
		return nil, "", err
	}
	var opts []nats.Option
	if host != "" {
		opts = append(opts, nats.Secure())
	}
	if ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	return opts, host, nil
}

// tlsFailure reports an error of the TLS the member asked for: a server
// that offers none, or a certificate this machine does not trust.
func tlsFailure(err error) bool {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	return errors.Is(err, nats.ErrSecureConnWanted) || errors.Is(err, nats.ErrSecureConnRequired) ||
		errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &host)
}
