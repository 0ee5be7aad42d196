package main

// The harness's own PKI: a CA, a serving certificate for 127.0.0.1/localhost, an admin client
// certificate (group system:masters) and the service-account signing key. Everything is written
// under the data directory and reused on restart, so clients keep trusting the same CA.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

type pki struct {
	dir                       string
	caCert, caKey             string
	servingCert, servingKey   string
	adminCert, adminKey       string
	serviceAccountKey         string
	tokenFile, schedulerToken string
}

func newPKI(dir string) (*pki, error) {
	p := &pki{
		dir:               dir,
		caCert:            filepath.Join(dir, "ca.crt"),
		caKey:             filepath.Join(dir, "ca.key"),
		servingCert:       filepath.Join(dir, "serving.crt"),
		servingKey:        filepath.Join(dir, "serving.key"),
		adminCert:         filepath.Join(dir, "admin.crt"),
		adminKey:          filepath.Join(dir, "admin.key"),
		serviceAccountKey: filepath.Join(dir, "sa.key"),
		tokenFile:         filepath.Join(dir, "tokens.csv"),
		schedulerToken:    "quotient-scheduler-token",
	}
	if _, err := os.Stat(p.caCert); err == nil {
		return p, nil // restart on the same data directory: keep everything
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "quotient-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	if err := writeCert(p.caCert, caDER); err != nil {
		return nil, err
	}
	if err := writeKey(p.caKey, caKey); err != nil {
		return nil, err
	}
	serving := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if err := p.issue(serving, ca, caKey, p.servingCert, p.servingKey); err != nil {
		return nil, err
	}
	admin := &x509.Certificate{
		SerialNumber: big.NewInt(3),
		Subject:      pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := p.issue(admin, ca, caKey, p.adminCert, p.adminKey); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := writeKey(p.serviceAccountKey, saKey); err != nil {
		return nil, err
	}
	// token,user,uid,"groups": the scheduler's identity for RBAC tests.
	tokens := fmt.Sprintf("%s,system:serviceaccount:quotient:scheduler,quotient-scheduler,\"system:authenticated\"\n",
		p.schedulerToken)
	return p, os.WriteFile(p.tokenFile, []byte(tokens), 0o600)
}

func (p *pki) issue(t *x509.Certificate, ca *x509.Certificate, caKey *ecdsa.PrivateKey, certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	t.NotBefore = time.Now().Add(-time.Hour)
	t.NotAfter = time.Now().Add(10 * 365 * 24 * time.Hour)
	t.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, t, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writeCert(certPath, der); err != nil {
		return err
	}
	return writeKey(keyPath, key)
}

func writeCert(path string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
