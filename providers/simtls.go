package providers

import (
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
	"time"
)

// SimTLS makes up a certificate authority and a server certificate it signs
// for host (and the loopback names), writes the authority's PEM to a
// temporary file for SSL_CERT_FILE, and returns the file's path and the
// server's TLS configuration.
func SimTLS(host string) (caFile string, _ *tls.Config, _ error) {
	ca, caKey, err := newCert(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "mailbot sim CA"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}, nil, nil)
	if err != nil {
		return "", nil, err
	}
	leaf := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "mailbot sim"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		if ip := net.ParseIP(h); ip != nil && !ip.IsLoopback() {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		}
	}
	leaf, key, err := newCert(leaf, ca, caKey)
	if err != nil {
		return "", nil, err
	}
	caFile, err = writePEM(ca.Raw)
	if err != nil {
		return "", nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
	return caFile, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// newCert signs template, valid for a week, with a new P-256 key, by
// parent and its key (itself when parent is nil).
func newCert(template, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = template, key
	}
	now := time.Now()
	template.SerialNumber = serial()
	template.NotBefore, template.NotAfter = now.Add(-time.Hour), now.Add(7*24*time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// writePEM writes a certificate to a new temporary PEM file.
func writePEM(der []byte) (string, error) {
	f, err := os.CreateTemp("", "mailbot-sim-ca-*.pem")
	if err != nil {
		return "", err
	}
	err = pem.Encode(f, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// serial returns a random certificate serial number of 128 bits.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
}
