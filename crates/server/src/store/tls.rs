//! TLS to the Postgres store, chosen by libpq's `sslmode` and `sslrootcert` in the store's URL.
//!
//! | `sslmode` | encrypted | server's certificate checked |
//! |---|---|---|
//! | `disable` | no | — |
//! | `prefer` (the default) | if the server offers it | no |
//! | `require` | yes, or no connection | no (as `verify-ca` when `sslrootcert` is given, as libpq does) |
//! | `verify-ca` | yes | signed by the CA in `sslrootcert` |
//! | `verify-full` | yes | signed by that CA, and for the host connected to |
//!
//! rust-postgres knows `disable`, `prefer` and `require` only, and no `sslrootcert`: both are
//! taken out of the URL here, and the connection is made with a rustls connector whose
//! certificate check is the mode's. The checks are rustls's own (webpki); `verify-ca` only
//! forgives a certificate that names another host.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::SslMode as DriverMode;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{
    verify_tls12_signature, verify_tls13_signature, CryptoProvider, WebPkiSupportedAlgorithms,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::StoreError;

/// libpq's `sslmode`, all six.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Option<SslMode> {
        Some(match value {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }
}

/// The TLS settings taken out of a store URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Settings {
    pub(super) mode: SslMode,
    pub(super) root_cert: Option<PathBuf>,
}

/// Takes `sslmode` and `sslrootcert` out of `url` (either form: `postgres://…?sslmode=…` or
/// `host=… sslmode=…`), returning the URL the driver parses and the settings. `what` names
/// the URL in errors (redacted).
pub(super) fn split(url: &str, what: &str) -> Result<(String, Settings), StoreError> {
    let mut mode = None;
    let mut root_cert = None;
    let mut take = |key: &str, value: &str| -> Result<bool, StoreError> {
        match key {
            "sslmode" => {
                mode = Some(SslMode::parse(value).ok_or_else(|| {
                    StoreError::Db(format!(
                        "{what}: sslmode={value:?} is not one of disable, allow, prefer, \
                         require, verify-ca, verify-full"
                    ))
                })?);
                Ok(true)
            }
            "sslrootcert" => {
                root_cert = Some(PathBuf::from(value));
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let rest = if let Some((head, query)) = url.split_once("://").and_then(|_| url.split_once('?'))
    {
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !take(key, &percent_decode(value))? {
                kept.push(pair);
            }
        }
        if kept.is_empty() {
            head.to_string()
        } else {
            format!("{head}?{}", kept.join("&"))
        }
    } else if url.contains("://") {
        url.to_string()
    } else {
        // key=value pairs separated by spaces; the two taken here have no spaces in them.
        let mut kept = Vec::new();
        for word in url.split_whitespace() {
            match word.split_once('=') {
                Some((key, value)) if take(key, value.trim_matches('\''))? => {}
                _ => kept.push(word),
            }
        }
        kept.join(" ")
    };
    let settings = Settings {
        mode: mode.unwrap_or(SslMode::Prefer),
        root_cert,
    };
    if matches!(settings.mode, SslMode::VerifyCa | SslMode::VerifyFull)
        && settings.root_cert.is_none()
    {
        return Err(StoreError::Db(format!(
            "{what}: sslmode={} needs sslrootcert=FILE, the PEM file of the certificate \
             authority that signed the server's certificate",
            if settings.mode == SslMode::VerifyCa {
                "verify-ca"
            } else {
                "verify-full"
            }
        )));
    }
    Ok((rest, settings))
}

/// `%XX` escapes of a URL's query value (a file path may hold spaces or `&`).
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How connections are made: plain, or with rustls and the mode's check.
#[derive(Clone)]
pub(super) enum Connector {
    Plain,
    Tls(MakeRustlsConnect),
}

impl Connector {
    /// The connector for `settings`, and the mode to give the driver. Reads the CA file
    /// now, so a missing or unreadable one stops the start with its name (the error is the
    /// caller's to put in context).
    pub(super) fn new(settings: &Settings) -> Result<(Connector, DriverMode), String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match (settings.mode, &settings.root_cert) {
            (SslMode::Disable, _) => return Ok((Connector::Plain, DriverMode::Disable)),
            (SslMode::VerifyFull, Some(ca)) => full(ca, &provider)?,
            (SslMode::VerifyCa | SslMode::Require, Some(ca)) => Arc::new(Lenient {
                inner: Some(full(ca, &provider)?),
                algorithms: provider.signature_verification_algorithms,
            }),
            _ => Arc::new(Lenient {
                inner: None,
                algorithms: provider.signature_verification_algorithms,
            }),
        };
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("setting up TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        let mode = match settings.mode {
            SslMode::Allow | SslMode::Prefer => DriverMode::Prefer,
            _ => DriverMode::Require,
        };
        Ok((Connector::Tls(MakeRustlsConnect::new(config)), mode))
    }
}

/// webpki's full check (chain to the CA in `ca`, validity, host name).
fn full(ca: &Path, provider: &Arc<CryptoProvider>) -> Result<Arc<dyn ServerCertVerifier>, String> {
    let bad = |why: String| format!("sslrootcert {}: {why}", ca.display());
    let mut roots = RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(ca)
        .map_err(|e| bad(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("no PEM certificate in the file".into()));
    }
    for cert in certs {
        roots.add(cert).map_err(|e| bad(e.to_string()))?;
    }
    let verifier: Arc<dyn ServerCertVerifier> =
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider))
            .build()
            .map_err(|e| bad(e.to_string()))?;
    Ok(verifier)
}

/// `verify-ca`, and `prefer` and `require` without a CA: encrypted, with webpki's check
/// forgiving a certificate that names another host, or with no check of the certificate at
/// all (what libpq does without a CA). Either way the handshake's signatures are checked
/// against the certificate, with the provider's algorithms (as webpki's own check does).
#[derive(Debug)]
struct Lenient {
    /// The full check (`verify-ca`), or none: the certificate is taken as it comes.
    inner: Option<Arc<dyn ServerCertVerifier>>,
    /// The provider's signature algorithms, the ones webpki's check uses too.
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(inner) = &self.inner else {
            return Ok(ServerCertVerified::assertion());
        };
        match inner.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> (String, Settings) {
        split(url, "--store").unwrap()
    }

    #[test]
    fn ssl_settings_come_out_of_both_url_forms() {
        let (rest, s) = settings(
            "postgres://q:pw@db:5432/jobs?sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20x.pem&connect_timeout=3",
        );
        assert_eq!(rest, "postgres://q:pw@db:5432/jobs?connect_timeout=3");
        assert_eq!(s.mode, SslMode::VerifyFull);
        assert_eq!(s.root_cert.as_deref(), Some(Path::new("/etc/ca x.pem")));
        let (rest, s) = settings("postgres://db/jobs?sslmode=require");
        assert_eq!(
            (rest.as_str(), s.mode),
            ("postgres://db/jobs", SslMode::Require)
        );
        let (rest, s) = settings("host=db user=q sslmode=verify-ca sslrootcert=/ca.pem dbname=j");
        assert_eq!(rest, "host=db user=q dbname=j");
        assert_eq!(s.mode, SslMode::VerifyCa);
        let (rest, s) = settings("postgres://db/jobs");
        assert_eq!(
            (rest.as_str(), s.mode, s.root_cert),
            ("postgres://db/jobs", SslMode::Prefer, None)
        );
    }

    #[test]
    fn a_bad_mode_or_a_verify_mode_without_a_ca_is_refused_by_name() {
        let err = split("postgres://db/j?sslmode=verify", "--store x").unwrap_err();
        assert!(
            err.to_string()
                .contains("--store x: sslmode=\"verify\" is not one of"),
            "{err}"
        );
        let err = split("postgres://db/j?sslmode=verify-full", "--store x").unwrap_err();
        assert!(
            err.to_string()
                .contains("sslmode=verify-full needs sslrootcert=FILE"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.pem");
        let s = Settings {
            mode: SslMode::VerifyFull,
            root_cert: Some(missing.clone()),
        };
        let err = Connector::new(&s).err().unwrap();
        assert!(
            err.starts_with(&format!("sslrootcert {}: ", missing.display())),
            "{err}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let s = Settings {
            mode: SslMode::VerifyCa,
            root_cert: Some(empty),
        };
        let err = Connector::new(&s).err().unwrap();
        assert!(err.contains("no PEM certificate in the file"), "{err}");
    }
}
