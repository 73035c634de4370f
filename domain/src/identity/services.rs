//! The identity services built over one set of ports ([`IdentityServices::new`]): each service holds the
//! shared [`SessionIssuer`] and only the ports of its own job. The server's wiring and the tests build them
//! here.

use std::sync::Arc;

use crate::common::{Clock, SecretGenerator};
use crate::identity::account::{AccountPorts, AccountService};
use crate::identity::codes::{EmailPorts, EmailSignIn};
use crate::identity::digests::DigestKey;
use crate::identity::factors::{FactorPorts, FactorService};
use crate::identity::oauth::external::ProviderSignIn;
use crate::identity::ports::{
    AccountRepository, FactorRepository, IdentityLinkRepository, OneTimeCodeRepository, PasswordHasher,
    RecoveryCodeRepository, RefreshTokenRepository, SessionListRepository, TokenSigner, WebAuthnCeremony,
};
use crate::identity::rate_limit::VolumeLimits;
use crate::identity::sessions::{IdentityConfig, IssuerPorts, SessionIssuer, SessionPorts, SessionService};

/// Every port the identity services use.
pub struct IdentityPorts {
    pub accounts: Arc<dyn AccountRepository>,
    pub links: Arc<dyn IdentityLinkRepository>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub codes: Arc<dyn OneTimeCodeRepository>,
    pub factors: Arc<dyn FactorRepository>,
    pub recovery_codes: Arc<dyn RecoveryCodeRepository>,
    pub session_list: Arc<dyn SessionListRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub signer: Arc<dyn TokenSigner>,
    pub clock: Arc<dyn Clock>,
    pub secrets: Arc<dyn SecretGenerator>,
    /// The key of typed-code digests, sealed factor secrets and sign-up decoy ids (not a port: a value from
    /// the server secret).
    pub digest_key: DigestKey,
    /// The WebAuthn ceremonies of `webauthn` factors (`None`: no relying party, the factors are off).
    pub webauthn: Option<Arc<dyn WebAuthnCeremony>>,
    /// The volume limits the use cases a client asks for without a proof admit it by.
    pub limits: VolumeLimits,
}

/// The identity services, built together over one issuer.
#[derive(Clone)]
pub struct IdentityServices {
    pub issuer: Arc<SessionIssuer>,
    pub sessions: Arc<SessionService>,
    pub factors: Arc<FactorService>,
    pub account: Arc<AccountService>,
    pub email: Arc<EmailSignIn>,
    pub providers: Arc<ProviderSignIn>,
    /// The volume limits, for the use cases built beside these (passkeys, OAuth).
    pub limits: VolumeLimits,
}

impl IdentityServices {
    #[must_use]
    pub fn new(ports: IdentityPorts, config: IdentityConfig) -> Self {
        let issuer = Arc::new(SessionIssuer::new(
            IssuerPorts {
                accounts: ports.accounts.clone(),
                links: ports.links.clone(),
                factors: ports.factors.clone(),
                refresh_tokens: ports.refresh_tokens.clone(),
                signer: ports.signer,
                clock: ports.clock,
                secrets: ports.secrets.clone(),
            },
            config,
        ));
        let sessions = SessionService::new(
            issuer.clone(),
            SessionPorts {
                accounts: ports.accounts.clone(),
                codes: ports.codes.clone(),
                hasher: ports.hasher.clone(),
                refresh_tokens: ports.refresh_tokens.clone(),
                session_list: ports.session_list.clone(),
                secrets: ports.secrets.clone(),
            },
        );
        let factors = FactorService::new(
            issuer.clone(),
            FactorPorts {
                factors: ports.factors,
                recovery_codes: ports.recovery_codes,
                refresh_tokens: ports.refresh_tokens.clone(),
                session_list: ports.session_list.clone(),
                secrets: ports.secrets.clone(),
                digest_key: ports.digest_key.clone(),
                webauthn: ports.webauthn,
            },
        );
        let account = AccountService::new(
            issuer.clone(),
            AccountPorts {
                accounts: ports.accounts.clone(),
                hasher: ports.hasher.clone(),
                refresh_tokens: ports.refresh_tokens,
                session_list: ports.session_list,
            },
        );
        let email = EmailSignIn::new(
            issuer.clone(),
            EmailPorts {
                accounts: ports.accounts.clone(),
                codes: ports.codes,
                hasher: ports.hasher,
                secrets: ports.secrets,
                digest_key: ports.digest_key,
                limits: ports.limits.clone(),
            },
        );
        let providers = ProviderSignIn::new(issuer.clone(), ports.accounts, ports.links);
        Self {
            issuer,
            sessions: Arc::new(sessions),
            factors: Arc::new(factors),
            account: Arc::new(account),
            email: Arc::new(email),
            providers: Arc::new(providers),
            limits: ports.limits,
        }
    }
}
