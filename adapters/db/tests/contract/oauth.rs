//! OAuth flows and auth codes: stored whole, taken once (also under concurrency), pruned when expired.

use adapter_db::repos::DieselOAuthFlowRepository;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::common::RepoError;
use domain::identity::ProviderProfile;
use domain::identity::oauth::{AuthCode, ChallengeMethod, CodeChallenge, OAuthFlow, OAuthFlowRepository};
use serde_json::json;

fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

fn challenge(method: ChallengeMethod) -> CodeChallenge {
    CodeChallenge {
        method,
        value: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
    }
}

fn flow(state_hash: &str, expires_at: DateTime<Utc>) -> OAuthFlow {
    OAuthFlow {
        state_hash: state_hash.into(),
        provider: "google".into(),
        challenge: challenge(ChallengeMethod::S256),
        redirect_to: "https://portal.test/signin?next=%2Fdashboard".into(),
        nonce: "nonce-1".into(),
        provider_verifier: "verifier-1".into(),
        created_at: expires_at - Duration::minutes(10),
        expires_at,
    }
}

fn code(code_hash: &str, expires_at: DateTime<Utc>, email: Option<&str>) -> AuthCode {
    AuthCode {
        code_hash: code_hash.into(),
        challenge: challenge(ChallengeMethod::Plain),
        profile: ProviderProfile {
            issuer: "https://accounts.google.test".into(),
            subject: "g-1".into(),
            provider: "google".into(),
            email: email.map(str::to_owned),
            email_verified: email.is_some(),
            claims: json!({"name": "Ada", "picture": "https://img.test/a.png"}),
        },
        created_at: expires_at - Duration::minutes(5),
        expires_at,
    }
}

contract! {
    async fn a_flow_is_read_back_whole_and_only_once(db) {
        let repo = DieselOAuthFlowRepository::new(db.clone());
        let stored = flow("state-1", noon());
        repo.insert_flow(&stored).await.unwrap();
        repo.insert_flow(&flow("state-2", noon())).await.unwrap();
        assert_eq!(repo.take_flow("state-1").await.unwrap(), Some(stored));
        assert_eq!(repo.take_flow("state-1").await.unwrap(), None);
        assert_eq!(repo.take_flow("unknown").await.unwrap(), None);
        assert!(repo.take_flow("state-2").await.unwrap().is_some(), "other flows stay");
    }

    async fn a_repeated_state_is_a_duplicate(db) {
        let repo = DieselOAuthFlowRepository::new(db.clone());
        repo.insert_flow(&flow("state-1", noon())).await.unwrap();
        let error = repo.insert_flow(&flow("state-1", noon())).await.unwrap_err();
        assert!(matches!(error, RepoError::Duplicate("oauth_flow")), "{error:?}");
    }

    async fn an_auth_code_keeps_its_challenge_and_profile_and_is_taken_once(db) {
        let repo = DieselOAuthFlowRepository::new(db.clone());
        let with_email = code("code-1", noon(), Some("dev@example.com"));
        let without = code("code-2", noon(), None);
        repo.insert_code(&with_email).await.unwrap();
        repo.insert_code(&without).await.unwrap();
        assert_eq!(repo.take_code("code-1").await.unwrap(), Some(with_email));
        assert_eq!(repo.take_code("code-1").await.unwrap(), None);
        assert_eq!(repo.take_code("code-2").await.unwrap(), Some(without));
        repo.insert_code(&code("code-3", noon(), None)).await.unwrap();
        let duplicate = repo.insert_code(&code("code-3", noon(), None)).await.unwrap_err();
        assert!(matches!(duplicate, RepoError::Duplicate("oauth_auth_code")), "{duplicate:?}");
    }

    async fn expired_flows_and_codes_are_taken_too_and_pruned(db) {
        let repo = DieselOAuthFlowRepository::new(db.clone());
        let past = noon() - Duration::minutes(1);
        repo.insert_flow(&flow("old", past)).await.unwrap();
        repo.insert_flow(&flow("live", noon() + Duration::minutes(5))).await.unwrap();
        repo.insert_code(&code("old", past, None)).await.unwrap();
        repo.insert_code(&code("live", noon() + Duration::minutes(5), None)).await.unwrap();
        repo.insert_code(&code("old-taken", past, None)).await.unwrap();
        assert!(repo.take_code("old-taken").await.unwrap().is_some(), "the service judges expiry");
        assert_eq!(repo.prune_expired(noon()).await.unwrap(), 2);
        assert_eq!(repo.take_flow("old").await.unwrap(), None);
        assert_eq!(repo.take_code("old").await.unwrap(), None);
        assert!(repo.take_flow("live").await.unwrap().is_some());
        assert!(repo.take_code("live").await.unwrap().is_some());
    }

    async fn of_concurrent_takes_exactly_one_gets_the_code_and_the_flow(db) {
        let repo = DieselOAuthFlowRepository::new(db.clone());
        repo.insert_code(&code("contested", noon(), Some("dev@example.com"))).await.unwrap();
        repo.insert_flow(&flow("contested", noon())).await.unwrap();
        let codes = (0..8).map(|_| {
            let repo = repo.clone();
            tokio::spawn(async move { repo.take_code("contested").await.unwrap().is_some() })
        });
        let flows = (0..8).map(|_| {
            let repo = repo.clone();
            tokio::spawn(async move { repo.take_flow("contested").await.unwrap().is_some() })
        });
        let codes: Vec<bool> = futures::future::join_all(codes).await.into_iter().map(Result::unwrap).collect();
        let flows: Vec<bool> = futures::future::join_all(flows).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(codes.iter().filter(|won| **won).count(), 1);
        assert_eq!(flows.iter().filter(|won| **won).count(), 1);
    }
}
