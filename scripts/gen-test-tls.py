#!/usr/bin/env python3
"""Writes the test-only TLS material in fixtures/tls/ (see its SOURCES.md): a private CA, a
server certificate for 127.0.0.1 and localhost signed by it, the same server with an expired
certificate, a client certificate, and a second CA that signed nothing the server shows.

    python3 scripts/gen-test-tls.py fixtures/tls

Needs the `cryptography` package. These keys protect nothing: they exist so the tests can start a
real Prometheus behind TLS. Never use them elsewhere.
"""
import datetime as dt
import ipaddress
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
VALID = (dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc), dt.datetime(2125, 12, 31, tzinfo=dt.timezone.utc))
EXPIRED = (dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc))


def key():
    return ec.generate_private_key(ec.SECP256R1())


def write(name, cert, k):
    (out / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    if k is not None:
        (out / f"{name}.key").write_bytes(
            k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )


def ca(cn):
    k = key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    c = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(k.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(VALID[0])
        .not_valid_after(VALID[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(k.public_key()), critical=False)
        .sign(k, hashes.SHA256())
    )
    return c, k


def leaf(cn, issuer, issuer_key, validity, usage, sans):
    k = key()
    b = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
        .issuer_name(issuer.subject)
        .public_key(k.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(validity[0])
        .not_valid_after(validity[1])
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False
        )
    )
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return b.sign(issuer_key, hashes.SHA256()), k


root, root_key = ca("headroom test CA")
write("ca", root, None)
other, _ = ca("headroom other test CA")
write("other-ca", other, None)
sans = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
server = ExtendedKeyUsageOID.SERVER_AUTH
write("server", *leaf("127.0.0.1", root, root_key, VALID, server, sans))
write("expired", *leaf("127.0.0.1", root, root_key, EXPIRED, server, sans))
write("client", *leaf("headroom test client", root, root_key, VALID, ExtendedKeyUsageOID.CLIENT_AUTH, []))
