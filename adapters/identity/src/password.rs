//! [`PasswordHasher`] with argon2id (OWASP ASVS: 19 MiB, two passes, one lane), hashed off the async
//! runtime and at most a few at a time, so that a burst of sign-ins cannot exhaust memory.

use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use domain::identity::ports::{PasswordHashError, PasswordHasher};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How expensive a hash is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashCost {
    /// argon2id, 19 MiB, t=2, p=1: the production setting.
    Production,
    /// argon2id with the smallest parameters the algorithm allows: for tests only.
    TestsOnly,
}

impl HashCost {
    fn params(self) -> Result<Params, PasswordHashError> {
        let (memory_kib, passes) = match self {
            Self::Production => (Params::DEFAULT_M_COST, Params::DEFAULT_T_COST),
            Self::TestsOnly => (8, 1),
        };
        Params::new(memory_kib, passes, 1, None).map_err(|e| PasswordHashError(e.to_string()))
    }
}

const SALT_BYTES: usize = 16;

/// argon2id password hashing.
#[derive(Clone)]
pub struct Argon2Hasher {
    params: Params,
    /// A hash of a random password, verified against when there is no account, so that the time taken
    /// does not say whether the e-mail has one.
    decoy: Arc<String>,
    permits: Arc<Semaphore>,
}

impl std::fmt::Debug for Argon2Hasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Argon2Hasher")
            .field("m_cost", &self.params.m_cost())
            .field("t_cost", &self.params.t_cost())
            .finish_non_exhaustive()
    }
}

fn hasher(params: Params) -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn hash_now(params: Params, password: &[u8]) -> Result<String, PasswordHashError> {
    let mut salt = [0u8; SALT_BYTES];
    crate::random::fill(&mut salt);
    hasher(params)
        .hash_password_with_salt(password, &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| PasswordHashError(e.to_string()))
}

fn verify_now(password: &[u8], hash: &str) -> Result<bool, PasswordHashError> {
    // The parameters come from the stored PHC string, so hashes made with older settings still verify.
    match Argon2::default().verify_password(password, hash) {
        Ok(()) => Ok(true),
        Err(argon2::password_hash::Error::PasswordInvalid) => Ok(false),
        Err(other) => Err(PasswordHashError(other.to_string())),
    }
}

impl Argon2Hasher {
    /// A hasher of the given cost. Hashes one random password at once (the decoy), which takes as long as
    /// one sign-in.
    ///
    /// # Errors
    /// [`PasswordHashError`] when the parameters are refused or hashing fails.
    pub fn new(cost: HashCost) -> Result<Self, PasswordHashError> {
        let params = cost.params()?;
        let mut decoy_password = [0u8; 24];
        crate::random::fill(&mut decoy_password);
        let decoy = hash_now(params.clone(), &decoy_password)?;
        let parallel = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Ok(Self {
            params,
            decoy: Arc::new(decoy),
            permits: Arc::new(Semaphore::new(parallel * 2)),
        })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, PasswordHashError> + Send + 'static,
    ) -> Result<T, PasswordHashError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| PasswordHashError(e.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| PasswordHashError(format!("the hashing task failed: {e}")))?
    }
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &str) -> Result<String, PasswordHashError> {
        let params = self.params.clone();
        let password = password.as_bytes().to_vec();
        self.blocking(move || hash_now(params, &password)).await
    }

    async fn verify(&self, password: &str, hash: &str) -> Result<bool, PasswordHashError> {
        let password = password.as_bytes().to_vec();
        let hash = hash.to_owned();
        self.blocking(move || verify_now(&password, &hash)).await
    }

    async fn waste_verify(&self, password: &str) {
        let decoy = Arc::clone(&self.decoy);
        let password = password.as_bytes().to_vec();
        let _ = self.blocking(move || verify_now(&password, &decoy)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_its_password_and_no_other() {
        let hasher = Argon2Hasher::new(HashCost::TestsOnly).unwrap();
        let hash = hasher.hash("correct horse battery").await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=8,t=1,p=1$"), "{hash}");
        assert!(hasher.verify("correct horse battery", &hash).await.unwrap());
        assert!(!hasher.verify("correct horse battery!", &hash).await.unwrap());
    }

    #[tokio::test]
    async fn two_hashes_of_one_password_differ_by_their_salt() {
        let hasher = Argon2Hasher::new(HashCost::TestsOnly).unwrap();
        assert_ne!(
            hasher.hash("same password").await.unwrap(),
            hasher.hash("same password").await.unwrap()
        );
    }

    #[tokio::test]
    async fn production_hashes_use_19_mib_two_passes_one_lane() {
        let hasher = Argon2Hasher::new(HashCost::Production).unwrap();
        let hash = hasher.hash("a password").await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
        // A hash made with other parameters still verifies (the parameters travel in the hash).
        let tiny = Argon2Hasher::new(HashCost::TestsOnly).unwrap();
        assert!(hasher.verify("x", &tiny.hash("x").await.unwrap()).await.unwrap());
    }

    #[tokio::test]
    async fn an_unreadable_stored_hash_is_an_error_not_a_wrong_password() {
        let hasher = Argon2Hasher::new(HashCost::TestsOnly).unwrap();
        assert!(hasher.verify("x", "not a hash").await.is_err());
        hasher.waste_verify("anything").await;
    }
}
