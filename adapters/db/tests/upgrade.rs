//! Upgrades keep data: a database built with the migrations as they stood at commit b46b124 (2026-11-28, the
//! first commit whose migrations are all as they are today, the last one `20261128000700`), filled through
//! that schema with SQL — a row in every one of its 32 tables, and of each kind a table holds (every audit
//! action, review event kind and e-mail kind of that version, every code purpose and factor type, a pending and
//! a bound platform role…) — is migrated by today's binary and read back through today's repositories, on
//! SQLite and PostgreSQL. The migrations after it add tables (`access_tokens`, the webhooks') that hold no
//! earlier rows, and the audit log's `via_token`; the logos, stored with the address they were uploaded at, become
//! their image keys (answered at today's address).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::too_many_lines)]

use adapter_db::Backend;
use adapter_db::repos::{
    DieselAccountRepository, DieselAppRepository, DieselAuditLog, DieselFactorRepository,
    DieselIdentityLinkRepository, DieselImageRepository, DieselInviteRepository, DieselOAuthFlowRepository,
    DieselOneTimeCodeRepository, DieselOrgRepository, DieselOutboxRepository, DieselPasskeyRepository,
    DieselPlatformAdminRepository, DieselRateLimitStore, DieselRecoveryCodeRepository,
    DieselRefreshTokenRepository, DieselReviewRepository, DieselSessionListRepository,
    DieselUptimeRepository, ServerSecrets,
};
use adapter_db::testing::empty;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use diesel::connection::SimpleConnection;
use domain::apps::ports::AppRepository as _;
use domain::apps::{AppStoreStatus, PackageName};
use domain::audit::ports::AuditLog as _;
use domain::audit::{AuditAction, AuditEntry, AuditEntryId, AuditFilter, AuditScope};
use domain::common::{EmailAddress, ImageId, OrgId, PlatformRole, UserId};
use domain::identity::factors::{FactorCeremonyKind, FactorStatus, FactorType};
use domain::identity::models::{AuthMethod, SecondFactorMethod, SetupClaim};
use domain::identity::oauth::{ChallengeMethod, OAuthFlowRepository as _};
use domain::identity::passkeys::CeremonyKind;
use domain::identity::ports::{
    AccountRepository as _, FactorRepository as _, IdentityLinkRepository as _, OneTimeCodeRepository as _,
    PasskeyRepository as _, PlatformAdminRepository as _, RecoveryCodeRepository as _,
    RefreshTokenRepository as _, SessionListRepository as _,
};
use domain::identity::rate_limit::{RateLimitStore as _, WindowCounts};
use domain::mail::{EmailKind, OutboxRepository as _};
use domain::media::ImageLinks;
use domain::media::ports::ImageRepository as _;
use domain::orgs::{InviteRepository as _, OrgRepository as _, OrgRole};
use domain::review::models::since_last_decision;
use domain::review::ports::ReviewRepository as _;
use domain::review::{ReviewEventKind, SinceLastDecision};
use domain::uptime::calendar::YearMonth;
use domain::uptime::models::HealthState;
use domain::uptime::ports::UptimeRepository as _;
use serde_json::json;
use std::str::FromStr;
use uuid::Uuid;

/// Where the upgraded portal answers ([`ImageLinks`]).
const TODAYS_ADDRESS: &str = "https://devportal.example.org";
/// The last migration of the earlier release.
const EARLIER: &str = "20261128000700";
const ADA: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000001";
const BOB: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000002";
const ORG: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000a1";
const PKG: &str = "com.example.earlier";
const ADA_FAMILY: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000f1";
const BOB_FAMILY: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000f2";
const TOTP: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000c1";
const RECOVERY: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000c2";
const WEBAUTHN: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000c3";
const TOTP_CHALLENGE: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000d1";
const WEBAUTHN_CHALLENGE: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000d2";
const APP_IMAGE: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000b1";
const ORG_IMAGE: &str = "6f1c1e0e-2a43-4c8e-9a3c-0000000000b2";
const PASSKEY: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000091";
const SIGN_IN_CEREMONY: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000092";
const REGISTRATION_CEREMONY: &str = "6f1c1e0e-2a43-4c8e-9a3c-000000000093";
/// 2025-11-28T03:20:00Z: when the earlier rows were written.
const T: i64 = 1_764_300_000_000;

/// What the repositories are asked with: a minute after the rows were written.
fn now() -> DateTime<Utc> {
    Utc.timestamp_millis_opt(T).unwrap() + Duration::minutes(1)
}

/// Rows of every table of the earlier schema, written as that schema had them (the same SQL on both
/// databases). Times are milliseconds: `1764300000000` is [`T`], `4102444800000` (2100) never expires.
const EARLIER_ROWS: &str = r#"
INSERT INTO server_secrets (name, value, created_at) VALUES ('jwt_core_key', 'an-earlier-secret', 1764300000000);

INSERT INTO accounts (id, email, password_hash, email_confirmed_at, created_at, updated_at, last_sign_in_at,
    profile, display_name, email_proven_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'ada@example.com', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    1764300000000, 1764300000000, 1764300000000, 1764300000000, '{"full_name":"Ada Lovelace"}', 'Ada',
    1764300000000);
INSERT INTO accounts (id, email, password_hash, email_confirmed_at, created_at, updated_at, last_sign_in_at,
    profile, display_name, email_proven_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000002', 'bob@example.com', NULL, 1764300000000, 1764300000000,
    1764300000000, NULL, '{}', NULL, NULL);

INSERT INTO identities (issuer, subject, user_id, email, email_verified, created_at, provider)
  VALUES ('https://accounts.google.com', 'google-subject-1', '6f1c1e0e-2a43-4c8e-9a3c-000000000002',
    'bob@example.com', TRUE, 1764300000000, 'google');

INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, last_used_at, family_started_at,
    revoked_at, replaced_by, method, second_factor_method, second_factor_id, second_factor_at)
  VALUES ('ada-token-1', '6f1c1e0e-2a43-4c8e-9a3c-0000000000f1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    1764299000000, 1764299000000, 1764299000000, NULL, 'ada-token-2', 'password', NULL, NULL, NULL);
INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, last_used_at, family_started_at,
    revoked_at, replaced_by, method, second_factor_method, second_factor_id, second_factor_at)
  VALUES ('ada-token-2', '6f1c1e0e-2a43-4c8e-9a3c-0000000000f1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    1764300000000, 1764300000000, 1764299000000, NULL, NULL, 'password', 'totp',
    '6f1c1e0e-2a43-4c8e-9a3c-0000000000c1', 1764300000000);
INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, last_used_at, family_started_at,
    revoked_at, replaced_by, method, second_factor_method, second_factor_id, second_factor_at)
  VALUES ('bob-token-1', '6f1c1e0e-2a43-4c8e-9a3c-0000000000f2', '6f1c1e0e-2a43-4c8e-9a3c-000000000002',
    1764300000000, 1764300000000, 1764300000000, NULL, NULL, 'oauth', NULL, NULL, NULL);
INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, last_used_at, family_started_at,
    revoked_at, replaced_by, method, second_factor_method, second_factor_id, second_factor_at)
  VALUES ('ada-token-signed-out', '6f1c1e0e-2a43-4c8e-9a3c-0000000000f3', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    1764200000000, 1764200000000, 1764200000000, 1764250000000, NULL, 'magiclink', NULL, NULL, NULL);

INSERT INTO session_clients (family_id, user_id, user_agent, ip_address, last_used_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000f1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    'Mozilla/5.0 (X11; Linux x86_64)', '198.51.100.7', 1764300000000);

INSERT INTO one_time_codes (id, purpose, email, code_hash, created_at, expires_at, used_at, pending_password_hash,
    browser_hash, typed)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000061', 'signup', 'carol@example.com', 'code-signup', 1764300000000,
    4102444800000, NULL, 'pending-password-hash', 'browser-digest', FALSE);
INSERT INTO one_time_codes (id, purpose, email, code_hash, created_at, expires_at, used_at, pending_password_hash,
    browser_hash, typed)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000062', 'magic_link', 'ada@example.com', 'code-magic-link',
    1764300000000, 4102444800000, NULL, NULL, NULL, FALSE);
INSERT INTO one_time_codes (id, purpose, email, code_hash, created_at, expires_at, used_at, pending_password_hash,
    browser_hash, typed)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000063', 'recovery', 'ada@example.com', 'code-recovery-typed',
    1764300000000, 4102444800000, NULL, NULL, NULL, TRUE);
INSERT INTO one_time_codes (id, purpose, email, code_hash, created_at, expires_at, used_at, pending_password_hash,
    browser_hash, typed)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000064', 'email_change', 'ada.new@example.com', 'code-email-change',
    1764300000000, 4102444800000, NULL, NULL, NULL, FALSE);
INSERT INTO failed_codes (email, failures, last_failed_at) VALUES ('ada@example.com', 4, 1764300000000);

INSERT INTO organizations (id, name, website, contact_email, description, logo, created_at, updated_at,
    apps_revision, require_two_factor)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', 'Earlier Org', 'https://example.com', 'ops@example.com',
    'Made before the upgrade', 'http://127.0.0.1:8080/api/images/6f1c1e0e-2a43-4c8e-9a3c-0000000000b2', 1764300000000, 1764300000000,
    3, TRUE);
INSERT INTO org_members (org_id, user_id, role, joined_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'admin', 1764300000000);
INSERT INTO org_members (org_id, user_id, role, joined_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', '6f1c1e0e-2a43-4c8e-9a3c-000000000002', 'member', 1764300000000);
INSERT INTO org_invites (id, org_id, email, role, token_hash, invited_by, invited_at, expires_at, email_sent_count,
    accepted_at, accepted_by, cancelled_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000081', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', 'dave@example.com',
    'member', 'invite-open', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 1764300000000, 4102444800000, 2, NULL, NULL,
    NULL);
INSERT INTO org_invites (id, org_id, email, role, token_hash, invited_by, invited_at, expires_at, email_sent_count,
    accepted_at, accepted_by, cancelled_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000082', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', 'bob@example.com',
    'member', 'invite-accepted', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 1764290000000, 4102444800000, 1,
    1764300000000, '6f1c1e0e-2a43-4c8e-9a3c-000000000002', NULL);

INSERT INTO apps (package_name, org_id, developer_id, name, description, onboarding_instructions, public_url,
    logo_url, webview_url, is_public, app_store_status, app_type, created_at, updated_at, review_notes,
    reviewed_by, reviewed_at, tools, settings, hardware_requirements, permissions, shared_with_organization,
    shared_with_emails)
  VALUES ('com.example.earlier', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    'Earlier Notes', 'Takes notes', 'Say "take a note"', 'https://notes.example.com',
    'https://portal.example.com/api/images/6f1c1e0e-2a43-4c8e-9a3c-0000000000b1', 'https://notes.example.com/webview', TRUE, 'PUBLISHED',
    'standard', 1764290000000, 1764300000000, 'Looks good', 'ada@example.com', 1764300000000,
    '[{"id":"take_note","description":"Takes a note","activationPhrases":["take a note"],"parameters":{"text":{"type":"string","description":"What to note","required":true}}}]',
    '[{"type":"group","title":"General"},{"type":"toggle","key":"loud","label":"Loud","defaultValue":true},{"type":"select","key":"voice","label":"Voice","options":[{"label":"Low","value":"low"},{"label":"High","value":"high"}],"defaultValue":"low"},{"type":"slider","key":"speed","label":"Speed","min":0,"max":10,"defaultValue":5}]',
    '[{"type":"MICROPHONE","level":"REQUIRED"},{"type":"DISPLAY","level":"OPTIONAL","description":"Shows notes"}]',
    '[{"type":"MICROPHONE","description":"To hear notes"}]', TRUE, '["bob@example.com"]');
INSERT INTO app_api_keys (package_name, key_hash, created_at)
  VALUES ('com.example.earlier', 'earlier-key-hash', 1764290000000);
INSERT INTO app_share_tokens (package_name, token, created_at)
  VALUES ('com.example.earlier', 'earlier-share-token', 1764290000000);
INSERT INTO review_events (id, package_name, org_id, kind, actor_id, actor_email, notes, at, detail)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000301ff', 'com.example.earlier', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1',
    'approved', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'ada@example.com', 'Looks good', 1764299500000,
    '{"reviewed":{"name":"Earlier Notes","description":"Took notes"}}');
INSERT INTO images (id, org_id, uploaded_by, content_type, size, app_package, created_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000b1', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1',
    '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'image/png', 2048, 'com.example.earlier', 1764290000000);
INSERT INTO images (id, org_id, uploaded_by, content_type, size, app_package, created_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000b2', '6f1c1e0e-2a43-4c8e-9a3c-0000000000a1',
    '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'image/webp', 1024, NULL, 1764290000000);

UPDATE uptime_monitor SET check_slot_at = 1764300000000, lease_until = NULL, consecutive_failures = 2,
    last_health = 'timeout', last_online = FALSE, last_checked_at = 1764300000000,
    offline_alert_at = 1764300000000, last_changed_at = 1764299940000
  WHERE package_name = 'com.example.earlier';
INSERT INTO uptime_checks (package_name, checked_at, health, online, http_status, latency_ms, healthy)
  VALUES ('com.example.earlier', 1764299940000, 'healthy', TRUE, 200, 42, TRUE);
INSERT INTO uptime_checks (package_name, checked_at, health, online, http_status, latency_ms, healthy)
  VALUES ('com.example.earlier', 1764300000000, 'timeout', FALSE, NULL, NULL, FALSE);
INSERT INTO uptime_daily (package_name, day, healthy, unhealthy, total, latency_sum_ms, latency_count)
  VALUES ('com.example.earlier', '2025-11-28', 1, 1, 2, 42, 1);
INSERT INTO uptime_state_changes (package_name, changed_at, online, health)
  VALUES ('com.example.earlier', 1764300000000, FALSE, 'timeout');

INSERT INTO rate_limit_counters (key, window_start, count, expires_at)
  VALUES ('signin:ip:198.51.100.7', 1764299100000, 3, 4102444800000);
INSERT INTO rate_limit_counters (key, window_start, count, expires_at)
  VALUES ('signin:ip:198.51.100.7', 1764300000000, 7, 4102444800000);

INSERT INTO oauth_flows (state_hash, provider, code_challenge, code_challenge_method, redirect_to, nonce,
    provider_verifier, created_at, expires_at)
  VALUES ('flow-state-hash', 'google', 'browser-challenge', 's256', 'https://portal.example.com/dashboard',
    'flow-nonce', 'provider-verifier', 1764300000000, 4102444800000);
INSERT INTO oauth_auth_codes (code_hash, code_challenge, code_challenge_method, provider, issuer, subject, email,
    email_verified, claims, created_at, expires_at)
  VALUES ('auth-code-hash', 'code-challenge', 'plain', 'github', 'https://github.example.com', 'github-subject-9',
    'erin@example.com', FALSE, '{"name":"Erin","picture":"https://github.example.com/erin.png"}', 1764300000000,
    4102444800000);

INSERT INTO platform_admins (id, email, user_id, role, added_at, added_by)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000071', 'ada@example.com', '6f1c1e0e-2a43-4c8e-9a3c-000000000001',
    'admin', 1764290000000, NULL);
INSERT INTO platform_admins (id, email, user_id, role, added_at, added_by)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000072', 'grace@example.com', NULL, 'reviewer', 1764300000000,
    'ada@example.com');
INSERT INTO platform_admin_seeds (email, seeded_at) VALUES ('ada@example.com', 1764290000000);
INSERT INTO platform_setup_tokens (token_hash, expires_at) VALUES ('setup-token-hash', 4102444800000);

INSERT INTO factors (id, user_id, factor_type, status, friendly_name, sealed_secret, last_used_step, created_at,
    updated_at, last_challenged_at, webauthn_credential_id, webauthn_public_key, webauthn_sign_count)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000c1', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'totp', 'verified',
    'Phone', 'sealed-totp-secret', 58810000, 1764290000000, 1764300000000, 1764300000000, NULL, NULL, NULL);
INSERT INTO factors (id, user_id, factor_type, status, friendly_name, sealed_secret, last_used_step, created_at,
    updated_at, last_challenged_at, webauthn_credential_id, webauthn_public_key, webauthn_sign_count)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000c2', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'recovery_code',
    'verified', NULL, '', NULL, 1764290000000, 1764290000000, NULL, NULL, NULL, NULL);
INSERT INTO factors (id, user_id, factor_type, status, friendly_name, sealed_secret, last_used_step, created_at,
    updated_at, last_challenged_at, webauthn_credential_id, webauthn_public_key, webauthn_sign_count)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000c3', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'webauthn', 'verified',
    'Security key', '', NULL, 1764290000000, 1764290000000, NULL, 'factor-credential', 'factor-public-key', 3);
INSERT INTO factor_challenges (id, factor_id, created_at, verified_at, ip_address, webauthn_kind, webauthn_state)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000d1', '6f1c1e0e-2a43-4c8e-9a3c-0000000000c1', 1764300000000,
    1764300000000, '198.51.100.7', NULL, NULL);
INSERT INTO factor_challenges (id, factor_id, created_at, verified_at, ip_address, webauthn_kind, webauthn_state)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000000d2', '6f1c1e0e-2a43-4c8e-9a3c-0000000000c3', 1764300000000, NULL,
    '198.51.100.7', 'request', '{"ceremony":"state"}');
INSERT INTO recovery_codes (id, factor_id, code_hash, created_at, used_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000051', '6f1c1e0e-2a43-4c8e-9a3c-0000000000c2', 'recovery-1',
    1764290000000, 1764300000000);
INSERT INTO recovery_codes (id, factor_id, code_hash, created_at, used_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000052', '6f1c1e0e-2a43-4c8e-9a3c-0000000000c2', 'recovery-2',
    1764290000000, NULL);
INSERT INTO recovery_codes (id, factor_id, code_hash, created_at, used_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000053', '6f1c1e0e-2a43-4c8e-9a3c-0000000000c2', 'recovery-3',
    1764290000000, NULL);

INSERT INTO passkeys (id, user_id, credential_id, public_key, sign_count, friendly_name, created_at, last_used_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000091', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'passkey-credential',
    'passkey-public-key', 5, 'Laptop', 1764290000000, 1764300000000);
INSERT INTO webauthn_challenges (id, user_id, kind, state, created_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000092', NULL, 'authentication', '{"sign":"in"}', 1764300000000);
INSERT INTO webauthn_challenges (id, user_id, kind, state, created_at)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000000093', '6f1c1e0e-2a43-4c8e-9a3c-000000000001', 'registration',
    '{"add":"passkey"}', 1764300000000);

INSERT INTO audit_log (id, at, org_id, platform, actor_id, actor_email, action, target_kind, target_id,
    target_label, changes, client_ip, user_agent)
  VALUES ('6f1c1e0e-2a43-4c8e-9a3c-000000010000', 1764300000000, NULL, TRUE, NULL,
    'operator (app-server command line or configuration)', 'platform.role_granted', 'account', 'grace@example.com',
    'grace@example.com', '[{"field":"role","old":null,"new":"reviewer"}]', NULL, NULL);
"#;

/// The audit actions of the earlier version: one organization entry of each.
const EARLIER_ACTIONS: [&str; 27] = [
    "app.created",
    "app.updated",
    "app.deleted",
    "app.published",
    "app.moved",
    "app.key_regenerated",
    "app.visibility_changed",
    "app.sharing_changed",
    "app.permissions_changed",
    "app.share_link_reset",
    "org.created",
    "org.updated",
    "org.deleted",
    "invite.sent",
    "invite.resent",
    "invite.rescinded",
    "invite.accepted",
    "member.role_changed",
    "member.removed",
    "member.left",
    "review.approved",
    "review.rejected",
    "platform.role_granted",
    "platform.role_revoked",
    "platform.first_admin",
    "image.uploaded",
    "image.deleted",
];

/// The review event kinds of the earlier version (the `approved` one, with the reviewed snapshot, is in
/// [`EARLIER_ROWS`]).
const EARLIER_REVIEW_KINDS: [&str; 6] = [
    "submitted",
    "rejected",
    "edited_after_approval",
    "edited",
    "resubmitted",
    "moved",
];

/// The e-mail kinds of the earlier version: one waiting in the outbox of each, and one sent and one failed.
const EARLIER_EMAIL_KINDS: [&str; 8] = [
    "confirm_signup",
    "magic_link",
    "password_recovery",
    "org_invite",
    "app_approved",
    "app_rejected",
    "app_offline",
    "security_notice",
];

/// The rows of one of each kind of the lists above.
fn rows_of_each_kind() -> String {
    let mut sql = String::new();
    for (n, action) in EARLIER_ACTIONS.iter().enumerate() {
        sql.push_str(&format!(
            "INSERT INTO audit_log (id, at, org_id, platform, actor_id, actor_email, action, target_kind, \
             target_id, target_label, changes, client_ip, user_agent) VALUES \
             ('6f1c1e0e-2a43-4c8e-9a3c-0000000101{n:02x}', {at}, '{ORG}', FALSE, '{ADA}', 'ada@example.com', \
             '{action}', 'organization', '{ORG}', 'Earlier Org', \
             '[{{\"field\":\"name\",\"old\":\"Org\",\"new\":\"Earlier Org\"}}]', '198.51.100.7', 'curl/8');\n",
            at = T - 1000 * i64::try_from(n).unwrap(),
        ));
    }
    for (n, kind) in EARLIER_REVIEW_KINDS.iter().enumerate() {
        let detail = match *kind {
            "edited" | "edited_after_approval" => "'{\"changedFields\":[\"description\"]}'",
            "resubmitted" => "'{\"addedPermissions\":[\"CAMERA\"]}'",
            "moved" => {
                "'{\"fromOrgId\":\"6f1c1e0e-2a43-4c8e-9a3c-0000000000a9\",\"toOrgId\":\"6f1c1e0e-2a43-4c8e-9a3c-0000000000a1\"}'"
            }
            _ => "NULL",
        };
        sql.push_str(&format!(
            "INSERT INTO review_events (id, package_name, org_id, kind, actor_id, actor_email, notes, at, detail) \
             VALUES ('6f1c1e0e-2a43-4c8e-9a3c-0000000300{n:02x}', '{PKG}', '{ORG}', '{kind}', '{ADA}', \
             'ada@example.com', NULL, {at}, {detail});\n",
            at = 1_764_290_000_000_i64 + 1000 * i64::try_from(n).unwrap(),
        ));
    }
    for (n, kind) in EARLIER_EMAIL_KINDS.iter().enumerate() {
        sql.push_str(&format!(
            "INSERT INTO email_outbox (id, kind, recipient, subject, body, link, created_at, attempts, \
             next_attempt_at, lease_until, sent_at, failed_at, last_error) VALUES \
             ('6f1c1e0e-2a43-4c8e-9a3c-0000000200{n:02x}', '{kind}', 'dave@example.com', 'About {kind}', \
             'Body of {kind}', 'https://portal.example.com/{kind}', {at}, 1, {at}, NULL, NULL, NULL, \
             'connection refused');\n",
            at = T - 1000 * i64::try_from(n).unwrap(),
        ));
    }
    sql.push_str(&format!(
        "INSERT INTO email_outbox (id, kind, recipient, subject, body, link, created_at, attempts, \
         next_attempt_at, lease_until, sent_at, failed_at, last_error) VALUES \
         ('6f1c1e0e-2a43-4c8e-9a3c-0000000201f0', 'confirm_signup', 'ada@example.com', 'Sent', 'Sent', NULL, {T}, 1, \
         {T}, NULL, {T}, NULL, NULL), \
         ('6f1c1e0e-2a43-4c8e-9a3c-0000000201f1', 'magic_link', 'ada@example.com', 'Failed', 'Failed', NULL, {T}, 8, \
         {T}, NULL, NULL, {T}, 'mailbox unavailable');\n"
    ));
    sql
}

fn user(id: &str) -> UserId {
    UserId::from_str(id).unwrap()
}

fn email(text: &str) -> EmailAddress {
    EmailAddress::parse(text).unwrap()
}

fn uuid(text: &str) -> Uuid {
    Uuid::parse_str(text).unwrap()
}

/// An audit entry for the writes the reads below make (a seed and a setup-link claim, both refused).
fn audit() -> AuditEntry {
    AuditEntry {
        id: AuditEntryId(Uuid::new_v4()),
        at: now(),
        org_id: None,
        actor_id: None,
        actor_email: "operator".into(),
        action: AuditAction::PlatformFirstAdmin,
        target: None,
        changes: Vec::new(),
        client_ip: None,
        user_agent: None,
        via_token: None,
    }
}

async fn upgrade_keeps_data(backend: Backend) {
    let test_db = empty(backend);
    let earlier = test_db.db.run_migrations_through(EARLIER).unwrap();
    assert_eq!(earlier.last().map(String::as_str), Some(EARLIER));
    let status = test_db.db.migration_status().unwrap();
    assert!(
        !status.pending.is_empty(),
        "{backend:?}: today's migrations are pending on the earlier schema"
    );
    let mut conn = test_db.db.connection().unwrap();
    conn.batch_execute(EARLIER_ROWS)
        .unwrap_or_else(|e| panic!("{backend:?}: the rows do not fit the earlier schema: {e}"));
    conn.batch_execute(&rows_of_each_kind())
        .unwrap_or_else(|e| panic!("{backend:?}: the rows of each kind do not fit the earlier schema: {e}"));
    drop(conn);
    assert_eq!(
        tables_without_rows(&test_db.db),
        Vec::<String>::new(),
        "{backend:?}: every table of the earlier schema has a row"
    );

    let applied = test_db.db.run_migrations().unwrap();
    assert_eq!(applied, status.pending, "{backend:?}: today's migrations ran");
    assert!(test_db.db.migration_status().unwrap().pending.is_empty());

    // The upgraded portal answers at another address than the one its logos were uploaded at.
    let db = &test_db
        .db
        .clone()
        .with_image_links(ImageLinks::new(TODAYS_ADDRESS));
    read_accounts_and_sessions(backend, db).await;
    read_codes_and_sign_in_flows(backend, db).await;
    read_second_factors(backend, db).await;
    read_platform_roles(backend, db).await;
    read_organization(backend, db).await;
    read_app(backend, db).await;
    read_uptime(backend, db).await;
    read_outbox(backend, db).await;
    read_audit_log(backend, db).await;
    let secret = ServerSecrets::new(db.clone())
        .get_or_create("jwt_core_key", || "a-new-secret".to_owned())
        .await
        .unwrap();
    assert_eq!(
        secret, "an-earlier-secret",
        "{backend:?}: the server secret is kept"
    );
}

/// The tables of the database (today's bookkeeping aside) that have no row.
fn tables_without_rows(db: &adapter_db::Db) -> Vec<String> {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Table {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    let mut conn = db.connection().unwrap();
    let list = match db.backend() {
        Backend::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND name <> '__diesel_schema_migrations' ORDER BY name"
        }
        Backend::Postgres => {
            "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() \
             AND table_type = 'BASE TABLE' AND table_name <> '__diesel_schema_migrations' ORDER BY table_name"
        }
    };
    let tables: Vec<Table> = diesel::sql_query(list).load(&mut *conn).unwrap();
    assert_eq!(tables.len(), 32, "the earlier schema has 32 tables");
    tables
        .into_iter()
        .filter(|table| {
            #[derive(diesel::QueryableByName)]
            struct Count {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            let count: Count = diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {}", table.name))
                .get_result(&mut *conn)
                .unwrap();
            count.n == 0
        })
        .map(|table| table.name)
        .collect()
}

async fn read_accounts_and_sessions(backend: Backend, db: &adapter_db::Db) {
    let accounts = DieselAccountRepository::new(db.clone());
    let ada = accounts.get(user(ADA)).await.unwrap().expect("Ada's account");
    assert_eq!(ada.email.as_str(), "ada@example.com");
    assert!(
        ada.password_hash
            .as_deref()
            .is_some_and(|h| h.starts_with("$argon2id$"))
    );
    assert!(ada.email_confirmed_at.is_some() && ada.email_proven_at.is_some());
    assert_eq!(ada.display_name.as_deref(), Some("Ada"));
    assert_eq!(ada.profile, json!({"full_name": "Ada Lovelace"}));
    let bob = accounts
        .find_by_email(&email("bob@example.com"))
        .await
        .unwrap()
        .expect("Bob's account");
    assert_eq!(
        (bob.id, bob.password_hash, bob.email_proven_at),
        (user(BOB), None, None)
    );

    let links = DieselIdentityLinkRepository::new(db.clone());
    let google = links
        .find("https://accounts.google.com", "google-subject-1")
        .await
        .unwrap()
        .expect("Bob's Google identity");
    assert_eq!((google.user_id, google.provider.as_str()), (user(BOB), "google"));
    assert!(google.email_verified);
    assert_eq!(links.list_for_user(user(BOB)).await.unwrap().len(), 1);

    let sessions = DieselRefreshTokenRepository::new(db.clone());
    let head = sessions
        .find_by_hash("ada-token-2")
        .await
        .unwrap()
        .expect("Ada's session");
    assert_eq!(head.method, AuthMethod::Password);
    let step = head.second_step.expect("the session passed a second factor");
    assert_eq!(
        (step.method, step.factor_id),
        (SecondFactorMethod::Totp, Some(uuid(TOTP)))
    );
    let rotated = sessions
        .find_by_hash("ada-token-1")
        .await
        .unwrap()
        .expect("the rotated token");
    assert_eq!(rotated.replaced_by.as_deref(), Some("ada-token-2"));
    let bob_head = sessions
        .current_of_family(uuid(BOB_FAMILY))
        .await
        .unwrap()
        .expect("Bob's session");
    assert_eq!((bob_head.method, bob_head.second_step), (AuthMethod::OAuth, None));
    let revoked = sessions
        .find_by_hash("ada-token-signed-out")
        .await
        .unwrap()
        .unwrap();
    assert!(revoked.revoked_at.is_some() && revoked.method == AuthMethod::MagicLink);
    let live = sessions
        .current_of_family_in_org(uuid(ADA_FAMILY), OrgId::from_str(ORG).unwrap())
        .await
        .unwrap()
        .expect("what authorizes Ada's requests in the organization");
    assert_eq!(live.live.head.token_hash, "ada-token-2");
    assert_eq!(live.live.role, Some(PlatformRole::Admin));
    let protection = live.live.protection;
    assert!(
        protection.totp && protection.webauthn_factor && protection.passkey,
        "{backend:?}: {protection:?}"
    );
    assert_eq!(live.org_role, Some(OrgRole::Admin));
    assert!(live.org_requires_two_factor);

    let listed = DieselSessionListRepository::new(db.clone())
        .list_live(user(ADA))
        .await
        .unwrap();
    assert_eq!(listed.len(), 1, "{backend:?}: Ada's one live session");
    let client = listed[0].client.as_ref().expect("the session's client");
    assert_eq!(
        client.user_agent.as_deref(),
        Some("Mozilla/5.0 (X11; Linux x86_64)")
    );
    assert_eq!(client.ip_address.as_deref(), Some("198.51.100.7"));
}

async fn read_codes_and_sign_in_flows(backend: Backend, db: &adapter_db::Db) {
    use domain::identity::models::OtpPurpose;
    let codes = DieselOneTimeCodeRepository::new(db.clone());
    assert_eq!(
        codes
            .pending_password(&email("carol@example.com"), now())
            .await
            .unwrap()
            .as_deref(),
        Some("pending-password-hash"),
        "{backend:?}: the sign-up waiting for its link keeps its password"
    );
    // Four failures were recorded before the upgrade: the fifth retires the typed recovery
    // code (before a code is used, which forgets them).
    assert!(
        codes
            .record_failed_code(&email("ada@example.com"), &[OtpPurpose::Recovery], now())
            .await
            .unwrap(),
        "{backend:?}: the earlier failures count"
    );
    assert!(
        codes
            .consume("code-recovery-typed", OtpPurpose::Recovery, now())
            .await
            .unwrap()
            .is_none()
    );
    let magic = codes
        .consume("code-magic-link", OtpPurpose::MagicLink, now())
        .await
        .unwrap()
        .expect("the magic link is usable");
    assert_eq!((magic.email.as_str(), magic.typed), ("ada@example.com", false));
    let change = codes
        .consume("code-email-change", OtpPurpose::EmailChange, now())
        .await
        .unwrap()
        .expect("the e-mail change link is usable");
    assert_eq!(change.email.as_str(), "ada.new@example.com");

    let oauth = DieselOAuthFlowRepository::new(db.clone());
    let flow = oauth
        .take_flow("flow-state-hash")
        .await
        .unwrap()
        .expect("the flow");
    assert_eq!(
        (flow.provider.as_str(), flow.challenge.method),
        ("google", ChallengeMethod::S256)
    );
    assert_eq!(flow.redirect_to, "https://portal.example.com/dashboard");
    let code = oauth
        .take_code("auth-code-hash")
        .await
        .unwrap()
        .expect("the auth code");
    assert_eq!(code.challenge.method, ChallengeMethod::Plain);
    assert_eq!(code.profile.claims["name"], "Erin");
    assert!(!code.profile.email_verified);

    let passkeys = DieselPasskeyRepository::new(db.clone());
    let passkey = passkeys
        .find_by_credential("passkey-credential")
        .await
        .unwrap()
        .expect("the passkey");
    assert_eq!((passkey.id, passkey.sign_count), (uuid(PASSKEY), 5));
    assert_eq!(passkeys.list_for_user(user(ADA)).await.unwrap().len(), 1);
    let sign_in = passkeys
        .take_challenge(uuid(SIGN_IN_CEREMONY), CeremonyKind::Authentication, None)
        .await
        .unwrap()
        .expect("the sign-in ceremony");
    assert_eq!(sign_in.state, r#"{"sign":"in"}"#);
    assert!(
        passkeys
            .take_challenge(
                uuid(REGISTRATION_CEREMONY),
                CeremonyKind::Registration,
                Some(user(ADA))
            )
            .await
            .unwrap()
            .is_some()
    );

    let limits = DieselRateLimitStore::new(db.clone());
    let window = Utc.timestamp_millis_opt(T).unwrap();
    assert_eq!(
        limits.peek("signin:ip:198.51.100.7", window, 900).await.unwrap(),
        WindowCounts {
            previous: 3,
            current: 7
        },
        "{backend:?}: the rate-limit windows are kept"
    );
}

async fn read_second_factors(backend: Backend, db: &adapter_db::Db) {
    let factors = DieselFactorRepository::new(db.clone());
    let mut kinds: Vec<(FactorType, FactorStatus)> = factors
        .list_for_user(user(ADA))
        .await
        .unwrap()
        .iter()
        .map(|f| (f.factor_type, f.status))
        .collect();
    kinds.sort_by_key(|(kind, _)| kind.code());
    assert_eq!(
        kinds,
        [
            (FactorType::RecoveryCode, FactorStatus::Verified),
            (FactorType::Totp, FactorStatus::Verified),
            (FactorType::WebAuthn, FactorStatus::Verified)
        ],
        "{backend:?}"
    );
    let totp = factors
        .find(user(ADA), uuid(TOTP))
        .await
        .unwrap()
        .expect("the TOTP factor");
    assert_eq!(
        (totp.sealed_secret.as_str(), totp.last_used_step),
        ("sealed-totp-secret", Some(58_810_000))
    );
    let key = factors
        .find(user(ADA), uuid(WEBAUTHN))
        .await
        .unwrap()
        .expect("the security key");
    let credential = key.webauthn.expect("its credential");
    assert_eq!(credential.credential_id, "factor-credential");
    let verified = factors
        .find_challenge(uuid(TOTP), uuid(TOTP_CHALLENGE))
        .await
        .unwrap()
        .expect("the TOTP challenge");
    assert!(verified.verified_at.is_some() && verified.webauthn.is_none());
    let ceremony = factors
        .find_challenge(uuid(WEBAUTHN), uuid(WEBAUTHN_CHALLENGE))
        .await
        .unwrap()
        .expect("the security key's challenge")
        .webauthn
        .expect("its ceremony");
    assert_eq!(ceremony.kind, FactorCeremonyKind::Request);
    let counts = DieselRecoveryCodeRepository::new(db.clone())
        .counts(uuid(RECOVERY))
        .await
        .unwrap();
    assert_eq!((counts.total, counts.remaining), (3, 2), "{backend:?}");
}

async fn read_platform_roles(backend: Backend, db: &adapter_db::Db) {
    let admins = DieselPlatformAdminRepository::new(db.clone());
    let mut listed: Vec<(String, Option<UserId>, PlatformRole)> = admins
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|a| (a.email.as_str().to_owned(), a.user_id, a.role))
        .collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        listed,
        [
            ("ada@example.com".to_owned(), Some(user(ADA)), PlatformRole::Admin),
            ("grace@example.com".to_owned(), None, PlatformRole::Reviewer)
        ],
        "{backend:?}: the bound and the pending role"
    );
    assert_eq!(
        admins.role_of(user(ADA)).await.unwrap(),
        Some(PlatformRole::Admin)
    );
    assert_eq!(
        admins
            .seed(&email("ada@example.com"), now(), &audit())
            .await
            .unwrap(),
        None,
        "{backend:?}: an address seeded before is not seeded again"
    );
    assert!(
        matches!(
            admins
                .claim_setup_token("setup-token-hash", user(BOB), now(), &audit())
                .await
                .unwrap(),
            SetupClaim::AdminExists
        ),
        "{backend:?}: the earlier setup link is found, and void once an admin exists"
    );
}

async fn read_organization(backend: Backend, db: &adapter_db::Db) {
    let org_id = OrgId::from_str(ORG).unwrap();
    let orgs = DieselOrgRepository::new(db.clone());
    let org = orgs.get(org_id).await.unwrap().expect("the organization is kept");
    assert_eq!(org.name, "Earlier Org");
    assert!(org.require_two_factor);
    assert_eq!(
        org.profile.contact_email.as_ref().map(EmailAddress::as_str),
        Some("ops@example.com")
    );
    let mut members: Vec<(UserId, OrgRole)> = orgs
        .members(org_id)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.user_id, m.role))
        .collect();
    members.sort_by_key(|(id, _)| id.to_string());
    assert_eq!(
        members,
        [(user(ADA), OrgRole::Admin), (user(BOB), OrgRole::Member)],
        "{backend:?}"
    );
    assert_eq!(orgs.list_for_user(user(BOB)).await.unwrap().len(), 1);

    let invites = DieselInviteRepository::new(db.clone());
    let pending = invites.pending(org_id).await.unwrap();
    assert_eq!(pending.len(), 1, "{backend:?}: the open invitation");
    assert_eq!(
        (pending[0].email.as_str(), pending[0].email_sent_count),
        ("dave@example.com", 2)
    );
    let accepted = invites
        .find_by_token_hash("invite-accepted")
        .await
        .unwrap()
        .expect("the accepted invitation");
    assert!(accepted.accepted_at.is_some());

    assert_eq!(
        org.profile.logo,
        Some(format!("{TODAYS_ADDRESS}/api/images/{ORG_IMAGE}")),
        "{backend:?}: the logo uploaded at http://127.0.0.1:8080 is answered at today's address"
    );

    let images = DieselImageRepository::new(db.clone());
    let logo = images
        .get(org_id, ImageId::from_str(ORG_IMAGE).unwrap())
        .await
        .unwrap()
        .expect("the organization's logo");
    assert_eq!(
        (logo.content_type.as_str(), logo.size, logo.app_package),
        ("image/webp", 1024, None)
    );
    assert_eq!(images.total_size(org_id).await.unwrap(), 3072);
}

async fn read_app(backend: Backend, db: &adapter_db::Db) {
    let org_id = OrgId::from_str(ORG).unwrap();
    let package = PackageName::parse(PKG).unwrap();
    let apps = DieselAppRepository::new(db.clone());
    let app = apps
        .get(org_id, &package)
        .await
        .unwrap()
        .expect("the app is kept");
    assert_eq!(app.name, "Earlier Notes");
    assert_eq!(
        app.logo_url,
        format!("{TODAYS_ADDRESS}/api/images/{APP_IMAGE}"),
        "{backend:?}: the logo is answered at today's address"
    );
    assert_eq!(app.app_store_status, AppStoreStatus::Published);
    assert_eq!(
        (app.tools.len(), app.settings.len()),
        (1, 4),
        "{backend:?}: tools and settings read back"
    );
    assert_eq!(app.tools[0].activation_phrases, ["take a note"]);
    assert_eq!(app.hardware_requirements.len(), 2);
    assert_eq!(app.permissions[0].description.as_deref(), Some("To hear notes"));
    assert!(app.shared_with_organization);
    assert_eq!(app.shared_with_emails, [email("bob@example.com")]);
    assert_eq!(
        app.webview_url.as_deref(),
        Some("https://notes.example.com/webview")
    );
    assert_eq!(app.review_notes.as_deref(), Some("Looks good"));
    let by_key = apps
        .find_by_key_hash("earlier-key-hash")
        .await
        .unwrap()
        .expect("the app by its key");
    assert_eq!(by_key.package_name, package);
    assert_eq!(
        apps.share_token(org_id, &package).await.unwrap().as_deref(),
        Some("earlier-share-token")
    );
    assert!(
        apps.find_by_share_token("earlier-share-token")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(apps.list(org_id).await.unwrap().len(), 1);

    let history = DieselReviewRepository::new(db.clone())
        .history(org_id, &package)
        .await
        .unwrap()
        .expect("the app's history");
    let mut kinds: Vec<&str> = history.iter().map(|event| event.kind.code()).collect();
    kinds.sort_unstable();
    let mut earlier: Vec<&str> = EARLIER_REVIEW_KINDS.iter().copied().chain(["approved"]).collect();
    earlier.sort_unstable();
    assert_eq!(kinds, earlier, "{backend:?}: every kind of review event");
    let moved = history.iter().find(|e| e.kind == ReviewEventKind::Moved).unwrap();
    assert_eq!(moved.detail.as_ref().unwrap()["toOrgId"], ORG);
    // The approval recorded what the reviewer saw: today's review dialog compares with it.
    let SinceLastDecision::Changed(changes) = since_last_decision(&app, &history) else {
        panic!("{backend:?}: the approval's snapshot is not read");
    };
    assert!(
        changes.iter().any(|c| c.field == "description"
            && c.old == json!("Took notes")
            && c.new == json!("Takes notes")),
        "{backend:?}: {changes:?}"
    );
    assert!(!changes.iter().any(|c| c.field == "name"), "{changes:?}");

    let images = DieselImageRepository::new(db.clone())
        .list_for_app(org_id, &package)
        .await
        .unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].id, ImageId::from_str(APP_IMAGE).unwrap());
}

async fn read_uptime(backend: Backend, db: &adapter_db::Db) {
    let package = PackageName::parse(PKG).unwrap();
    let uptime = DieselUptimeRepository::new(db.clone());
    let state = uptime
        .app_state(&package)
        .await
        .unwrap()
        .expect("the app's uptime state");
    assert_eq!(
        (state.online, state.health, state.consecutive_offline),
        (false, HealthState::Timeout, 2),
        "{backend:?}"
    );
    assert!(state.last_offline_alert_at.is_some());
    let monitored = uptime.all_monitored_apps().await.unwrap();
    assert_eq!(monitored.len(), 1);
    assert_eq!(monitored[0].health_url, "https://notes.example.com/health");
    let day = NaiveDate::from_ymd_opt(2025, 11, 28).unwrap();
    let problems = uptime.problem_checks(&package, day).await.unwrap();
    assert_eq!(problems.len(), 1, "{backend:?}: the failed check of the day");
    assert_eq!(problems[0].health, HealthState::Timeout);
    let month = uptime
        .app_month_rollups(&package, YearMonth::new(2025, 11).unwrap())
        .await
        .unwrap();
    assert_eq!(month.len(), 1);
    assert_eq!(
        (month[0].day, month[0].total, month[0].latency_sum_ms),
        (day, 2, 42)
    );
    // No repository reads the state changes (they are written for operators); today's schema does.
    let changes: Vec<(i64, bool, String)> = {
        use adapter_db::schema::uptime_state_changes::dsl;
        use diesel::prelude::*;
        let mut conn = db.connection().unwrap();
        dsl::uptime_state_changes
            .filter(dsl::package_name.eq(PKG))
            .select((dsl::changed_at, dsl::online, dsl::health))
            .load(&mut *conn)
            .unwrap()
    };
    assert_eq!(changes, [(T, false, "timeout".to_owned())], "{backend:?}");
}

async fn read_outbox(backend: Backend, db: &adapter_db::Db) {
    let outbox = DieselOutboxRepository::new(db.clone());
    let backlog = outbox.backlog().await.unwrap();
    assert_eq!(
        backlog.pending, 8,
        "{backend:?}: the sent and the failed e-mail are not pending"
    );
    let claimed = outbox
        .claim_due(now(), 50, now() + Duration::minutes(1))
        .await
        .unwrap();
    let mut kinds: Vec<EmailKind> = claimed.iter().map(|entry| entry.email.kind).collect();
    kinds.sort_by_key(|kind| kind.code());
    let mut earlier: Vec<&str> = EARLIER_EMAIL_KINDS.to_vec();
    earlier.sort_unstable();
    assert_eq!(
        kinds.iter().map(|kind| kind.code()).collect::<Vec<_>>(),
        earlier,
        "{backend:?}: an e-mail of every kind waits to be sent"
    );
    let invite = claimed
        .iter()
        .find(|e| e.email.kind == EmailKind::OrgInvite)
        .unwrap();
    assert_eq!(invite.email.to.as_str(), "dave@example.com");
    assert_eq!(invite.attempts, 1);
}

async fn read_audit_log(backend: Backend, db: &adapter_db::Db) {
    let org_id = OrgId::from_str(ORG).unwrap();
    let audit = DieselAuditLog::new(db.clone());
    let page = audit
        .list(AuditScope::Org(org_id), &AuditFilter::default(), None, 100)
        .await
        .unwrap();
    let mut actions: Vec<&str> = page.entries.iter().map(|entry| entry.action.code()).collect();
    actions.sort_unstable();
    let mut earlier = EARLIER_ACTIONS.to_vec();
    earlier.sort_unstable();
    assert_eq!(actions, earlier, "{backend:?}: an entry of every earlier action");
    let entry = page
        .entries
        .iter()
        .find(|entry| entry.action == AuditAction::OrgUpdated)
        .unwrap();
    assert_eq!(entry.client_ip.as_deref(), Some("198.51.100.7"));
    assert_eq!(entry.changes.len(), 1);
    assert_eq!(entry.changes[0].new, json!("Earlier Org"));
    assert_eq!(
        entry.target.as_ref().and_then(|t| t.label.as_deref()),
        Some("Earlier Org")
    );
    assert!(
        page.entries.iter().all(|entry| entry.via_token.is_none()),
        "{backend:?}: an entry from before tokens was made by a session"
    );
    let platform = audit
        .list(AuditScope::Platform, &AuditFilter::default(), None, 10)
        .await
        .unwrap();
    assert_eq!(platform.entries.len(), 1, "{backend:?}: the operator's entry");
    assert_eq!(platform.entries[0].action, AuditAction::PlatformRoleGranted);
    assert_eq!(platform.entries[0].actor_id, None);
}

#[tokio::test]
async fn an_earlier_sqlite_database_upgrades_and_keeps_its_rows() {
    upgrade_keeps_data(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_earlier_postgres_database_upgrades_and_keeps_its_rows() {
    upgrade_keeps_data(Backend::Postgres).await;
}
