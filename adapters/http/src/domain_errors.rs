//! How every domain error answers over HTTP: one `From` per domain error enum, so that handlers use `?`
//! and a new variant is mapped here, once. The code of each answer is the domain's own (`code()`); the
//! status follows the kind of failure (docs/api-design.md):
//!
//! | kind | status |
//! |---|---|
//! | a field is invalid (`VALIDATION`, with `fields`) or the request cannot be carried out as asked | 400 |
//! | not signed in | 401 |
//! | signed in, not allowed | 403 |
//! | nothing there (or nothing the caller may know of) | 404 |
//! | the state forbids it (a taken name, an illegal transition, a concurrent change) | 409 |
//! | too large for what is left | 413 |
//! | not a kind of content the route reads | 415 |
//! | a limit refused it (with `Retry-After`) | 429 |
//! | the database cannot be reached (with `Retry-After`) | 503, from [`RepoError`](domain::common::RepoError) |
//! | anything else | 500, the cause logged, never answered |

use domain::apps::service::AppError;
use domain::audit::AuditError;
use domain::common::FieldErrors;
use domain::identity::{AuthError, FirstAdminError, IdentityError, PlatformAdminError};
use domain::media::{ImageRejection, MediaError};
use domain::orgs::{ActingError, OrgError};
use domain::review::platform::PlatformToolsError;
use domain::review::{DeskError, ReviewError};
use domain::tokens::AccessTokenError;
use domain::uptime::UptimeError;

use crate::ApiError;
use crate::auth::principal::{EMAIL_IN_USE, MFA_REQUIRED, SESSION_EXPIRED, SIGN_IN_REQUIRED};

/// 400 `VALIDATION` with each field's message.
fn invalid(message: String, fields: &FieldErrors) -> ApiError {
    ApiError::Validation {
        message,
        fields: fields.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
    }
}

impl From<AppError> for ApiError {
    fn from(error: AppError) -> Self {
        let message = error.to_string();
        let code = error.code();
        match error {
            AppError::Validation(fields) => invalid(message, &fields),
            AppError::ProfileIncomplete | AppError::TargetOrgRequired | AppError::SameOrganization => {
                Self::bad_request(code, message)
            }
            AppError::DuplicatePackageName => {
                let fields = error.fields().unwrap_or_default();
                Self::conflict(code, message)
                    .with_fields(fields.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect())
            }
            AppError::IllegalTransition(_) | AppError::Conflict => Self::conflict(code, message),
            AppError::AdminOnly | AppError::NotMemberOfTarget => Self::Forbidden(message),
            AppError::TargetRequiresSecondFactor => Self::ForbiddenUntil { code, message },
            AppError::NotFound => Self::NotFound(message),
            AppError::Repo(cause) => cause.into(),
        }
    }
}

impl From<AuditError> for ApiError {
    fn from(error: AuditError) -> Self {
        let message = error.to_string();
        match error {
            AuditError::Forbidden(_) => Self::Forbidden(message),
            AuditError::Invalid(field, _) => Self::Validation {
                message: message.clone(),
                fields: std::collections::BTreeMap::from([(field.to_owned(), message)]),
            },
            AuditError::Repo(cause) => cause.into(),
        }
    }
}

impl From<DeskError> for ApiError {
    fn from(error: DeskError) -> Self {
        match error {
            DeskError::Review(error) => error.into(),
            DeskError::Tools(error) => error.into(),
            DeskError::Uptime(error) => error.into(),
        }
    }
}

impl From<OrgError> for ApiError {
    fn from(error: OrgError) -> Self {
        let message = error.to_string();
        let code = error.code();
        match error {
            OrgError::Validation(fields) => invalid(message, &fields),
            OrgError::NotFound
            | OrgError::MemberNotFound
            | OrgError::InviteNotFound
            | OrgError::InvalidInvite => Self::NotFound(message),
            OrgError::AdminOnly | OrgError::WrongInvitee => Self::Forbidden(message),
            OrgError::OwnRole
            | OrgError::RemoveSelf
            | OrgError::InviteExpired
            | OrgError::InviteAlreadyAccepted
            | OrgError::AlreadyMember(_) => Self::bad_request(code, message),
            OrgError::OnlyAdminCannotLeave
            | OrgError::OnlyAdminCannotBeDemoted
            | OrgError::OnlyAdminCannotBeRemoved
            | OrgError::AppsRemain
            | OrgError::InviteeIsMember
            | OrgError::InvitePending
            | OrgError::ResendExpired => Self::conflict(code, message),
            OrgError::InviteLimited(refused) => Self::TooManyRequests {
                message,
                retry_after: refused.retry_after_secs,
            },
            OrgError::SecondFactorRequired | OrgError::OwnSecondFactorFirst => {
                Self::ForbiddenUntil { code, message }
            }
            OrgError::Repo(cause) => cause.into(),
        }
    }
}

impl From<ActingError> for ApiError {
    fn from(error: ActingError) -> Self {
        match error {
            ActingError::SecondFactorRequired => OrgError::SecondFactorRequired.into(),
            ActingError::Repo(cause) => cause.into(),
        }
    }
}

impl From<ReviewError> for ApiError {
    fn from(error: ReviewError) -> Self {
        let message = error.to_string();
        let code = error.code();
        match error {
            ReviewError::Forbidden | ReviewError::NotMember => Self::Forbidden(message),
            ReviewError::NotFound => Self::NotFound(message),
            ReviewError::NotesRequired => Self::bad_request(code, message),
            ReviewError::IllegalTransition(_) | ReviewError::Conflict | ReviewError::Stale => {
                Self::conflict(code, message)
            }
            ReviewError::Repo(cause) => cause.into(),
        }
    }
}

impl From<FirstAdminError> for ApiError {
    fn from(error: FirstAdminError) -> Self {
        let message = error.to_string();
        match error {
            FirstAdminError::Invalid => Self::bad_request(error.code(), message),
            FirstAdminError::AdminExists => Self::conflict(error.code(), message),
            FirstAdminError::Repo(cause) => cause.into(),
        }
    }
}

impl From<PlatformAdminError> for ApiError {
    fn from(error: PlatformAdminError) -> Self {
        let message = error.to_string();
        match error {
            PlatformAdminError::Forbidden => Self::Forbidden(message),
            PlatformAdminError::Validation(fields) => invalid(message, &fields),
            PlatformAdminError::NotFound => Self::NotFound(message),
            PlatformAdminError::LastAdmin => Self::conflict(error.code(), message),
            PlatformAdminError::Repo(cause) => cause.into(),
        }
    }
}

impl From<PlatformToolsError> for ApiError {
    fn from(error: PlatformToolsError) -> Self {
        let message = error.to_string();
        match error {
            PlatformToolsError::AdminsOnly
            | PlatformToolsError::ReviewersOnly
            | PlatformToolsError::NotMember => Self::Forbidden(message),
            PlatformToolsError::DemoOff => Self::NotFound(message),
            PlatformToolsError::NoOrganization => Self::bad_request(error.code(), message),
            PlatformToolsError::Repo(cause) => cause.into(),
        }
    }
}

impl From<UptimeError> for ApiError {
    fn from(error: UptimeError) -> Self {
        let message = error.to_string();
        let code = error.code();
        match error {
            UptimeError::Forbidden => Self::Forbidden(message),
            UptimeError::InvalidMonth(_) | UptimeError::InvalidPage(_) => Self::bad_request(code, message),
            UptimeError::UnknownHealthUrl => Self::NotFound(message),
            UptimeError::LiveCheckLimited { retry_after_secs, .. } => Self::TooManyRequests {
                message,
                retry_after: retry_after_secs,
            },
            UptimeError::Repo(cause) => cause.into(),
        }
    }
}

impl From<MediaError> for ApiError {
    fn from(error: MediaError) -> Self {
        let message = error.to_string();
        let code = error.code();
        match error {
            MediaError::NotMember | MediaError::LogoAdminOnly => Self::Forbidden(message),
            MediaError::Rejected(ImageRejection::InvalidType) => Self::UnsupportedMediaType { code, message },
            // 413 for the space an organization has left too: the request is too large for it (409 would say
            // it conflicts with the resource's state, which another upload does not change).
            MediaError::Rejected(ImageRejection::TooLarge | ImageRejection::TooManyPixels)
            | MediaError::QuotaExceeded { .. } => Self::PayloadTooLarge { code, message },
            MediaError::NotFound => Self::NotFound(message),
            MediaError::UploadLimited { retry_after_secs } => Self::TooManyRequests {
                message,
                retry_after: retry_after_secs,
            },
            MediaError::Repo(cause) => cause.into(),
        }
    }
}

/// Authenticating a product call: 401 for any token that does not hold, 409 for a hosted user whose e-mail
/// belongs to another local account.
impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        if error.is_expired() {
            return Self::Unauthorized(SESSION_EXPIRED.into());
        }
        match error {
            AuthError::Unauthenticated(_) => Self::Unauthorized(SIGN_IN_REQUIRED.into()),
            AuthError::EmailInUse { user } => {
                tracing::warn!(
                    user_id = %user,
                    "refused a hosted user: the token's e-mail belongs to another local account"
                );
                Self::conflict("EMAIL_IN_USE", EMAIL_IN_USE)
            }
            AuthError::MfaRequired => Self::ForbiddenUntil {
                code: MFA_REQUIRED,
                message: error.to_string(),
            },
            AuthError::AccessToken(refusal) => Self::Unauthorized(refusal.to_string()),
            AuthError::TokenOutsideItsOrg => Self::ForbiddenUntil {
                code: "TOKEN_OUTSIDE_ITS_ORG",
                message: error.to_string(),
            },
            AuthError::Signing(cause) => Self::Internal(Box::new(cause)),
            AuthError::Repo(cause) => cause.into(),
        }
    }
}

/// The identity use cases the product API calls (the signed-in user's profile and sessions); `/auth/v1` answers in its
/// own shape (`identity::error`).
impl From<IdentityError> for ApiError {
    fn from(error: IdentityError) -> Self {
        match error {
            IdentityError::UserNotFound => Self::Unauthorized("Your account no longer exists.".into()),
            IdentityError::SessionNotFound => {
                Self::NotFound("This session has already ended or is not one of yours.".into())
            }
            IdentityError::Validation(fields) => invalid(fields.joined(" "), &fields),
            IdentityError::Repo(cause) => cause.into(),
            other => Self::Internal(Box::new(other)),
        }
    }
}

/// The access token use cases (`/api/dev/tokens`, `/api/orgs/{orgId}/tokens`).
impl From<AccessTokenError> for ApiError {
    fn from(error: AccessTokenError) -> Self {
        let message = error.to_string();
        match error {
            AccessTokenError::Validation(fields) => invalid(message, &fields),
            AccessTokenError::RecentSignInNeeded => Self::ForbiddenUntil {
                code: "RECENT_SIGN_IN_NEEDED",
                message,
            },
            AccessTokenError::SecondFactorNeeded => Self::ForbiddenUntil {
                code: MFA_REQUIRED,
                message,
            },
            AccessTokenError::NotFound => Self::NotFound(message),
            AccessTokenError::NotAdmin => Self::Forbidden(message),
            AccessTokenError::AlreadyRevoked => Self::conflict("ALREADY_REVOKED", message),
            AccessTokenError::Acting(cause) => cause.into(),
            AccessTokenError::Repo(cause) => cause.into(),
        }
    }
}

impl From<domain::webhooks::WebhookError> for ApiError {
    fn from(error: domain::webhooks::WebhookError) -> Self {
        use domain::webhooks::WebhookError;
        let message = error.to_string();
        match error {
            WebhookError::AdminOnly => Self::Forbidden(message),
            WebhookError::NotFound => Self::NotFound(message),
            WebhookError::Validation(fields) => invalid(message, &fields),
            WebhookError::TooMany => Self::conflict("WEBHOOK_LIMIT", message),
            WebhookError::InProgress => Self::conflict("DELIVERY_IN_PROGRESS", message),
            WebhookError::Backlog => Self::conflict("WEBHOOK_BACKLOG", message),
            WebhookError::SendLimited { retry_after_secs, .. } => Self::TooManyRequests {
                message,
                retry_after: retry_after_secs,
            },
            WebhookError::Repo(cause) => cause.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError;
    use actix_web::http::StatusCode;

    fn answer(error: impl Into<ApiError>) -> (u16, &'static str) {
        let error = error.into();
        (error.status_code().as_u16(), error.code())
    }

    fn fields() -> FieldErrors {
        FieldErrors::single("name", "Name is required")
    }

    #[test]
    fn app_errors_answer_their_status_and_the_domains_code() {
        assert_eq!(answer(AppError::Validation(fields())), (400, "VALIDATION"));
        assert_eq!(answer(AppError::ProfileIncomplete), (400, "PROFILE_INCOMPLETE"));
        assert_eq!(answer(AppError::TargetOrgRequired), (400, "TARGET_ORG_REQUIRED"));
        assert_eq!(answer(AppError::SameOrganization), (400, "SAME_ORGANIZATION"));
        assert_eq!(
            answer(AppError::DuplicatePackageName),
            (409, "PACKAGE_NAME_TAKEN")
        );
        assert_eq!(answer(AppError::Conflict), (409, "CONFLICT"));
        assert_eq!(answer(AppError::AdminOnly), (403, "FORBIDDEN"));
        assert_eq!(answer(AppError::NotMemberOfTarget), (403, "FORBIDDEN"));
        assert_eq!(answer(AppError::NotFound), (404, "NOT_FOUND"));
        let taken = ApiError::from(AppError::DuplicatePackageName);
        assert!(
            matches!(taken, ApiError::Conflict { fields: Some(ref f), .. } if f.contains_key("packageName"))
        );
    }

    #[test]
    fn org_errors_answer_their_status_and_the_domains_code() {
        assert_eq!(answer(OrgError::Validation(fields())), (400, "VALIDATION"));
        assert_eq!(answer(OrgError::NotFound), (404, "NOT_FOUND"));
        assert_eq!(answer(OrgError::MemberNotFound), (404, "NOT_FOUND"));
        assert_eq!(answer(OrgError::InviteNotFound), (404, "NOT_FOUND"));
        assert_eq!(answer(OrgError::InvalidInvite), (404, "NOT_FOUND"));
        assert_eq!(answer(OrgError::AdminOnly), (403, "FORBIDDEN"));
        assert_eq!(answer(OrgError::WrongInvitee), (403, "FORBIDDEN"));
        assert_eq!(answer(OrgError::OwnRole), (400, "NOT_ALLOWED"));
        assert_eq!(answer(OrgError::RemoveSelf), (400, "NOT_ALLOWED"));
        assert_eq!(answer(OrgError::InviteExpired), (400, "INVITE_EXPIRED"));
        assert_eq!(answer(OrgError::InviteAlreadyAccepted), (400, "INVITE_USED"));
        assert_eq!(answer(OrgError::OnlyAdminCannotLeave), (409, "ONLY_ADMIN"));
        assert_eq!(answer(OrgError::OnlyAdminCannotBeDemoted), (409, "ONLY_ADMIN"));
        assert_eq!(answer(OrgError::OnlyAdminCannotBeRemoved), (409, "ONLY_ADMIN"));
        assert_eq!(answer(OrgError::AppsRemain), (409, "APPS_REMAIN"));
        assert_eq!(answer(OrgError::InviteeIsMember), (409, "ALREADY_MEMBER"));
        assert_eq!(answer(OrgError::InvitePending), (409, "INVITE_PENDING"));
        assert_eq!(answer(OrgError::ResendExpired), (409, "INVITE_EXPIRED"));
    }

    #[test]
    fn review_admin_tools_uptime_and_media_errors_answer_their_status_and_the_domains_code() {
        assert_eq!(answer(ReviewError::Forbidden), (403, "FORBIDDEN"));
        assert_eq!(answer(ReviewError::NotMember), (403, "FORBIDDEN"));
        assert_eq!(answer(ReviewError::NotFound), (404, "NOT_FOUND"));
        assert_eq!(answer(ReviewError::NotesRequired), (400, "REVIEW_NOTES_REQUIRED"));
        assert_eq!(answer(ReviewError::Conflict), (409, "CONFLICT"));
        assert_eq!(answer(ReviewError::Stale), (409, "APP_CHANGED"));
        assert_eq!(answer(PlatformAdminError::Forbidden), (403, "FORBIDDEN"));
        assert_eq!(
            answer(PlatformAdminError::Validation(fields())),
            (400, "VALIDATION")
        );
        assert_eq!(answer(PlatformAdminError::NotFound), (404, "NOT_FOUND"));
        assert_eq!(answer(PlatformAdminError::LastAdmin), (409, "LAST_ADMIN"));
        assert_eq!(answer(PlatformToolsError::AdminsOnly), (403, "FORBIDDEN"));
        assert_eq!(answer(PlatformToolsError::DemoOff), (404, "NOT_FOUND"));
        assert_eq!(
            answer(PlatformToolsError::NoOrganization),
            (400, "NO_ORGANIZATION")
        );
        assert_eq!(answer(UptimeError::Forbidden), (403, "FORBIDDEN"));
        assert_eq!(answer(UptimeError::UnknownHealthUrl), (404, "NOT_FOUND"));
        assert_eq!(answer(MediaError::NotMember), (403, "FORBIDDEN"));
        assert_eq!(answer(MediaError::LogoAdminOnly), (403, "FORBIDDEN"));
        assert_eq!(
            answer(MediaError::Rejected(ImageRejection::InvalidType)),
            (415, "INVALID_IMAGE_TYPE")
        );
        assert_eq!(
            answer(MediaError::Rejected(ImageRejection::TooLarge)),
            (413, "IMAGE_TOO_LARGE")
        );
        assert_eq!(answer(MediaError::NotFound), (404, "NOT_FOUND"));
        assert_eq!(
            answer(MediaError::UploadLimited { retry_after_secs: 9 }),
            (429, "RATE_LIMITED")
        );
    }

    #[test]
    fn an_unreachable_database_is_503_whichever_use_case_met_it() {
        let down = || domain::common::RepoError::Unavailable {
            retry_after: std::time::Duration::from_secs(5),
        };
        for status in [
            ApiError::from(AppError::Repo(down())).status_code(),
            ApiError::from(OrgError::Repo(down())).status_code(),
            ApiError::from(ReviewError::Repo(down())).status_code(),
            ApiError::from(UptimeError::Repo(down())).status_code(),
            ApiError::from(MediaError::Repo(down())).status_code(),
        ] {
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        }
    }
}
