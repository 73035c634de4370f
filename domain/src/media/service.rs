//! Image use cases: upload (optionally replacing an image), delete, and delivery.
//!
//! Uploading is open to every member of the organization (PRODUCT.md §3: members manage apps). Setting an
//! image as the organization's logo is a profile edit, checked (admin only) where the profile is saved.

use std::sync::Arc;

use super::models::{check_inspected, check_upload, image_url, new_image_id, parse_image_ref, storage_key};
use super::{ImageInspector, ImageMeta, ImageRejection, ImageRepository, ImageStore};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::PackageName;
use crate::common::secrets::digest_secret;
use crate::common::{Caller, Clock, ImageId, OrgId, RepoError, SecretGenerator};
use crate::identity::rate_limit::{Limit, RateDecision, RateLimitStore};
use crate::membership::OrgProfileLookup;
use crate::membership::{ActingMember, OrgAction};

pub const NOT_A_MEMBER: &str = "You are not a member of this organization";
pub const IMAGE_NOT_FOUND: &str = "Image not found";
pub const LOGO_ADMIN_ONLY: &str = "Only an organization admin can replace or delete the organization's logo";

/// How long an image nothing refers to is kept (an upload for a form not saved yet has this long).
pub const UNREFERENCED_IMAGES_KEPT_HOURS: i64 = 24;
/// Most unreferenced images removed in one round.
const UNREFERENCED_BATCH: u32 = 500;

/// What one round of [`MediaService::remove_unreferenced`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnreferencedRemoval {
    /// Image rows removed.
    pub removed: u64,
    /// Files of removed rows that could not be deleted (nothing refers to them); the caller logs them.
    pub unremoved_files: Vec<String>,
}

/// Image uploads one account may make in an hour (PRODUCT.md §1: an upload rate limit per account).
pub const UPLOADS_PER_ACCOUNT_PER_HOUR: u32 = 60;
/// The storage quota of an organization's images unless `PORTAL_ORG_IMAGE_QUOTA_MB` says otherwise.
pub const DEFAULT_ORG_IMAGE_QUOTA_MB: u64 = 100;

/// Settings of the media use cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaConfig {
    /// Base of delivery URLs (the server's public URL).
    pub public_base: String,
    /// The most bytes an organization's images may take together (`PORTAL_ORG_IMAGE_QUOTA_MB`).
    pub org_quota_bytes: u64,
}

/// An upload as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadRequest {
    pub bytes: Vec<u8>,
    /// The `appPackageName` metadata, if sent.
    pub app_package: Option<PackageName>,
    /// The image this upload replaces (`replaceImageId`: an id or a delivery URL, see
    /// [`super::models::parse_image_ref`]).
    pub replace: Option<ImageId>,
}

/// A stored upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadedImage {
    pub meta: ImageMeta,
    /// The delivery URL (the response's `url`).
    pub url: String,
    /// The replaced image's file when it could not be removed (its row is gone, so nothing refers to it);
    /// the HTTP layer logs it.
    pub unremoved_file: Option<String>,
}

/// Errors of the media use cases; the doc of each variant names its HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// 403: the caller is not a member of the organization.
    #[error("{}", NOT_A_MEMBER)]
    NotMember,
    /// 413 (too large, in bytes or pixels) or 415 (not an allowed image type, or not decodable).
    #[error(transparent)]
    Rejected(#[from] ImageRejection),
    /// 404: the organization has no such image.
    #[error("{}", IMAGE_NOT_FOUND)]
    NotFound,
    /// 413: the upload would take the organization's images over its storage quota.
    #[error(
        "This image would take your organization's images over their {quota_mb} MB storage quota. Delete \
         images you no longer use first."
    )]
    QuotaExceeded { quota_mb: u64 },
    /// 429: the caller uploaded [`UPLOADS_PER_ACCOUNT_PER_HOUR`] images in the last hour; answer
    /// `Retry-After: retry_after_secs`.
    #[error(
        "You have uploaded {UPLOADS_PER_ACCOUNT_PER_HOUR} images in the last hour, the most allowed. Please try \
         again later."
    )]
    UploadLimited { retry_after_secs: u64 },
    /// 403: the image is the organization's logo, and the caller is not an admin (PRODUCT.md §3).
    #[error("{}", LOGO_ADMIN_ONLY)]
    LogoAdminOnly,
    /// 500 (or 503).
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl MediaError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::NotMember => "FORBIDDEN",
            Self::Rejected(rejection) => rejection.code(),
            Self::NotFound => "NOT_FOUND",
            Self::QuotaExceeded { .. } => "IMAGE_QUOTA_EXCEEDED",
            Self::UploadLimited { .. } => "RATE_LIMITED",
            Self::LogoAdminOnly => "FORBIDDEN",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// The ports the image use cases run on.
pub struct MediaPorts {
    pub images: Arc<dyn ImageRepository>,
    pub store: Arc<dyn ImageStore>,
    pub inspector: Arc<dyn ImageInspector>,
    pub orgs: Arc<dyn OrgProfileLookup>,
    pub clock: Arc<dyn Clock>,
    pub secrets: Arc<dyn SecretGenerator>,
    /// The shared rate-limit counters (the identity limits' store), for the upload limit.
    pub limits: Arc<dyn RateLimitStore>,
}

/// The image use cases.
pub struct MediaService {
    images: Arc<dyn ImageRepository>,
    store: Arc<dyn ImageStore>,
    inspector: Arc<dyn ImageInspector>,
    orgs: Arc<dyn OrgProfileLookup>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    limits: Arc<dyn RateLimitStore>,
    config: MediaConfig,
}

impl MediaService {
    #[must_use]
    pub fn new(ports: MediaPorts, config: MediaConfig) -> Self {
        let MediaPorts {
            images,
            store,
            inspector,
            orgs,
            clock,
            secrets,
            limits,
        } = ports;
        Self {
            images,
            store,
            inspector,
            orgs,
            clock,
            secrets,
            limits,
            config,
        }
    }

    /// The audit entry of `action` by `caller` on the organization's image `image`, now.
    fn audit(&self, caller: &Caller, action: AuditAction, org: OrgId, image: ImageId) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), caller, action, self.clock.now())
            .in_org(org)
            .on(AuditTarget::image(image))
    }

    /// Counts an upload of the caller against [`UPLOADS_PER_ACCOUNT_PER_HOUR`].
    async fn count_upload(&self, caller: &Caller) -> Result<(), MediaError> {
        let limit = Limit::new(UPLOADS_PER_ACCOUNT_PER_HOUR, 3600);
        let now = self.clock.now();
        let key = digest_secret(&format!("image_upload:account:{}", caller.user_id));
        let counts = self
            .limits
            .hit(&key, limit.window_start(now), limit.window_secs)
            .await?;
        match limit.decide(counts, now) {
            RateDecision::Allowed { .. } => Ok(()),
            RateDecision::Limited { retry_after_secs } => Err(MediaError::UploadLimited { retry_after_secs }),
        }
    }

    /// Whether the organization's images, without `replaced` and with `size` more bytes, stay within the
    /// quota. Checked before the write, so two uploads at once may pass it by one image at most each.
    async fn check_quota(
        &self,
        org: OrgId,
        size: u64,
        replaced: Option<&ImageMeta>,
    ) -> Result<(), MediaError> {
        let used = self.images.total_size(org).await?;
        let freed = replaced.map_or(0, |old| old.size);
        if used.saturating_sub(freed).saturating_add(size) > self.config.org_quota_bytes {
            return Err(MediaError::QuotaExceeded {
                quota_mb: self.config.org_quota_bytes / (1024 * 1024),
            });
        }
        Ok(())
    }

    const fn require_member(member: &ActingMember) -> Result<(), MediaError> {
        if member.can(OrgAction::ManageApps) {
            Ok(())
        } else {
            Err(MediaError::NotMember)
        }
    }

    /// Replacing or deleting the image the organization profile shows as its logo is an admin's act, like
    /// editing the profile (PRODUCT.md §3); any other image of the organization is a member's.
    async fn require_may_change(&self, member: &ActingMember, image: ImageId) -> Result<(), MediaError> {
        let logo = self
            .orgs
            .profile(member.org())
            .await?
            .and_then(|profile| profile.logo);
        if logo.as_deref().and_then(parse_image_ref) != Some(image) || member.can(OrgAction::ManageProfile) {
            Ok(())
        } else {
            Err(MediaError::LogoAdminOnly)
        }
    }

    /// Stores an image for the organization, optionally replacing one of its images, and answers its URL.
    ///
    /// # Errors
    /// [`MediaError::NotMember`]; [`MediaError::Rejected`] when the content is not an allowed image (by its
    /// magic bytes, or because it does not decode as that format), is over 10 MB or has too many pixels;
    /// [`MediaError::NotFound`] when the image to replace is not the organization's;
    /// [`MediaError::UploadLimited`] when the caller uploaded too many images in the last hour;
    /// [`MediaError::QuotaExceeded`] when the organization's images would pass their storage quota;
    /// [`MediaError::Repo`].
    pub async fn upload(
        &self,
        member: &ActingMember,
        request: UploadRequest,
    ) -> Result<UploadedImage, MediaError> {
        Self::require_member(member)?;
        let (caller, org) = (member.caller(), member.org());
        self.count_upload(caller).await?;
        // Content decides the type: a PNG named `logo.gif` is stored and served as a PNG.
        let format = check_upload(&request.bytes)?;
        let found = self.inspector.inspect(&request.bytes).await?;
        check_inspected(format, found)?;
        let replaced = match request.replace {
            Some(old) => {
                let found = self.images.get(org, old).await?.ok_or(MediaError::NotFound)?;
                self.require_may_change(member, old).await?;
                Some(found)
            }
            None => None,
        };
        let size = u64::try_from(request.bytes.len()).unwrap_or(u64::MAX);
        self.check_quota(org, size, replaced.as_ref()).await?;
        let meta = ImageMeta {
            id: new_image_id(self.secrets.as_ref()),
            org_id: org,
            uploaded_by: caller.user_id,
            content_type: format.content_type().to_owned(),
            size,
            created_at: self.clock.now(),
            app_package: request.app_package,
        };
        let key = meta.storage_key();
        let uploaded = self
            .audit(caller, AuditAction::ImageUploaded, org, meta.id)
            .change("contentType", serde_json::Value::Null, meta.content_type.as_str())
            .change("size", serde_json::Value::Null, meta.size)
            .change(
                "appPackageName",
                serde_json::Value::Null,
                meta.app_package.as_ref().map(|p| p.as_str().to_owned()),
            );
        self.store.put(&key, request.bytes, format.content_type()).await?;
        let stored = match &replaced {
            Some(old) => {
                let deleted = self.audit(caller, AuditAction::ImageDeleted, org, old.id);
                self.images
                    .replace(org, old.id, &meta, &[uploaded, deleted])
                    .await
            }
            None => self.images.insert(&meta, &uploaded).await,
        };
        if let Err(error) = stored {
            // The row was not written, so the file must not stay behind; the row error is what matters.
            let _ = self.store.delete(&key).await;
            return Err(match error {
                RepoError::NotFound => MediaError::NotFound,
                other => MediaError::Repo(other),
            });
        }
        let mut unremoved_file = None;
        if let Some(old) = replaced {
            let old_key = old.storage_key();
            if self.store.delete(&old_key).await.is_err() {
                unremoved_file = Some(old_key);
            }
        }
        Ok(UploadedImage {
            url: image_url(&self.config.public_base, meta.id),
            meta,
            unremoved_file,
        })
    }

    /// Deletes one of the organization's images: the file first, then the row, so that a failure leaves
    /// nothing unreferenced and the call can be repeated.
    ///
    /// # Errors
    /// [`MediaError::NotMember`]; [`MediaError::NotFound`] when the organization has no such image;
    /// [`MediaError::Repo`].
    pub async fn delete(&self, member: &ActingMember, id: ImageId) -> Result<(), MediaError> {
        Self::require_member(member)?;
        let org = member.org();
        let image = self.images.get(org, id).await?.ok_or(MediaError::NotFound)?;
        self.require_may_change(member, id).await?;
        self.store.delete(&image.storage_key()).await?;
        let audit = self.audit(member.caller(), AuditAction::ImageDeleted, org, id);
        self.images.delete(org, id, &audit).await.map_err(|e| match e {
            RepoError::NotFound => MediaError::NotFound,
            other => MediaError::Repo(other),
        })
    }

    /// Removes the images that no app or organization has referred to for
    /// [`UNREFERENCED_IMAGES_KEPT_HOURS`] (their rows, then their files), in batches until none is left.
    ///
    /// # Errors
    /// [`MediaError::Repo`] when the rows cannot be read or removed (files that cannot be removed are
    /// answered instead).
    pub async fn remove_unreferenced(&self) -> Result<UnreferencedRemoval, MediaError> {
        let cutoff = self.clock.now() - chrono::Duration::hours(UNREFERENCED_IMAGES_KEPT_HOURS);
        let mut report = UnreferencedRemoval::default();
        loop {
            let batch = self
                .images
                .remove_unreferenced(cutoff, UNREFERENCED_BATCH)
                .await?;
            for image in &batch {
                let key = image.storage_key();
                if self.store.delete(&key).await.is_err() {
                    report.unremoved_files.push(key);
                }
            }
            report.removed += batch.len() as u64;
            if batch.len() < UNREFERENCED_BATCH as usize {
                return Ok(report);
            }
        }
    }

    /// The bytes and content type of an image, for public delivery.
    ///
    /// # Errors
    /// [`MediaError::NotFound`] when there is no such image (or its file is gone); [`MediaError::Repo`].
    pub async fn fetch(&self, id: ImageId) -> Result<(Vec<u8>, String), MediaError> {
        let meta = self
            .images
            .get_for_delivery(id)
            .await?
            .ok_or(MediaError::NotFound)?;
        self.store
            .get(&storage_key(meta.id))
            .await?
            .ok_or(MediaError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{EmailAddress, UserId};
    use crate::media::ports::{MockImageInspector, MockImageRepository, MockImageStore};
    use crate::media::{ImageFormat, InspectedImage};
    use crate::membership::OrgRole;
    use crate::membership::ports::MockMemberDirectory;
    use crate::membership::ports::{MockOrgProfileLookup, OrgContact};
    use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};
    use mockall::predicate::eq;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    /// The organizations' storage quota in these tests: 1 MB.
    const QUOTA: u64 = 1024 * 1024;

    fn caller() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: None,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    fn members(role: Option<OrgRole>) -> MockMemberDirectory {
        let mut members = MockMemberDirectory::new();
        members.expect_role_of().returning(move |_, _| Ok(role));
        members.expect_standing_of().returning(move |_, _| {
            Ok(role.map(|role| crate::membership::MemberStanding {
                role,
                org_requires_two_factor: false,
            }))
        });
        members
    }

    /// The service with the caller's role in every organization, as the request's one membership read
    /// answered: [`Svc::upload`] and [`Svc::delete`] hand the use cases that [`ActingMember`].
    struct Svc {
        service: MediaService,
        role: Option<OrgRole>,
    }

    impl std::ops::Deref for Svc {
        type Target = MediaService;
        fn deref(&self) -> &MediaService {
            &self.service
        }
    }

    impl Svc {
        async fn acting(&self, who: &Caller, org: OrgId) -> ActingMember {
            ActingMember::resolve(
                crate::membership::StandingSource::Directory(&members(self.role), org),
                who.clone(),
                crate::membership::SecondFactor::NotPassed,
                crate::membership::Door::Act,
            )
            .await
            .unwrap()
            .expect("a member")
        }

        async fn upload(
            &self,
            who: &Caller,
            org: OrgId,
            request: UploadRequest,
        ) -> Result<UploadedImage, MediaError> {
            self.service.upload(&self.acting(who, org).await, request).await
        }

        async fn delete(&self, who: &Caller, org: OrgId, id: ImageId) -> Result<(), MediaError> {
            self.service.delete(&self.acting(who, org).await, id).await
        }
    }

    fn service(images: MockImageRepository, store: MockImageStore, role: Option<OrgRole>) -> Svc {
        service_with_logo(images, store, role, None)
    }

    /// An inspector that finds a 512×512 PNG in everything.
    fn png_inspector() -> MockImageInspector {
        inspector_finding(Ok(InspectedImage {
            format: ImageFormat::Png,
            width: 512,
            height: 512,
        }))
    }

    fn inspector_finding(found: Result<InspectedImage, ImageRejection>) -> MockImageInspector {
        let mut inspector = MockImageInspector::new();
        inspector.expect_inspect().returning(move |_| found);
        inspector
    }

    fn service_with_logo(
        images: MockImageRepository,
        store: MockImageStore,
        role: Option<OrgRole>,
        logo: Option<String>,
    ) -> Svc {
        service_with(images, store, png_inspector(), role, logo)
    }

    fn service_with(
        mut images: MockImageRepository,
        store: MockImageStore,
        inspector: MockImageInspector,
        role: Option<OrgRole>,
        logo: Option<String>,
    ) -> Svc {
        let mut orgs = MockOrgProfileLookup::new();
        orgs.expect_profile().returning(move |_| {
            Ok(Some(OrgContact {
                name: "Acme".into(),
                logo: logo.clone(),
                ..OrgContact::default()
            }))
        });
        // Unless the test said otherwise (its own expectation, set earlier, is matched first): no images yet.
        images.expect_total_size().returning(|_| Ok(0));
        let service = MediaService::new(
            MediaPorts {
                images: Arc::new(images),
                store: Arc::new(store),
                inspector: Arc::new(inspector),
                orgs: Arc::new(orgs),
                clock: Arc::new(fixed_clock()),
                secrets: Arc::new(RepeatingBytes(0x42)),
                limits: Arc::new(crate::testing::MemoryRateLimitStore::default()),
            },
            MediaConfig {
                public_base: "https://portal.example.com".into(),
                org_quota_bytes: QUOTA,
            },
        );
        Svc { service, role }
    }

    fn upload(bytes: &[u8]) -> UploadRequest {
        UploadRequest {
            bytes: bytes.to_vec(),
            app_package: None,
            replace: None,
        }
    }

    fn stored_image(org: OrgId) -> ImageMeta {
        ImageMeta {
            id: ImageId::new(),
            org_id: org,
            uploaded_by: UserId::new(),
            content_type: "image/png".into(),
            size: 10,
            created_at: noon(),
            app_package: None,
        }
    }

    #[test]
    fn a_member_uploads_a_png_and_gets_its_delivery_url() {
        let org = OrgId::new();
        let who = caller();
        let mut store = MockImageStore::new();
        store
            .expect_put()
            .withf(|_, bytes, ct| bytes.as_slice() == PNG && ct == "image/png")
            .times(1)
            .returning(|_, _, _| Ok(()));
        let mut images = MockImageRepository::new();
        let uploader = who.user_id;
        images
            .expect_insert()
            .withf(move |m, audit| {
                m.org_id == org
                    && m.uploaded_by == uploader
                    && m.size == PNG.len() as u64
                    && audit.action == AuditAction::ImageUploaded
                    && audit.org_id == Some(org)
                    && audit.actor_id == Some(uploader)
                    && audit.target == Some(AuditTarget::image(m.id))
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let uploaded =
            block_on(service(images, store, Some(OrgRole::Member)).upload(&who, org, upload(PNG))).unwrap();
        assert_eq!(
            uploaded.url,
            format!("https://portal.example.com/api/images/{}", uploaded.meta.id)
        );
        assert_eq!(uploaded.meta.created_at, noon());
        assert_eq!(uploaded.unremoved_file, None);
    }

    #[test]
    fn an_upload_over_the_organizations_storage_quota_is_refused_before_anything_is_stored() {
        let org = OrgId::new();
        let mut images = MockImageRepository::new();
        images
            .expect_total_size()
            .with(eq(org))
            .returning(|_| Ok(QUOTA - 10));
        images.expect_insert().never();
        let mut store = MockImageStore::new();
        store.expect_put().never();
        let err = block_on(service(images, store, Some(OrgRole::Member)).upload(&caller(), org, upload(PNG)))
            .unwrap_err();
        assert!(
            matches!(err, MediaError::QuotaExceeded { quota_mb: 1 }),
            "{err:?}"
        );
        assert_eq!(err.code(), "IMAGE_QUOTA_EXCEEDED");
        assert!(err.to_string().contains("1 MB storage quota"));
    }

    #[test]
    fn a_replacement_counts_only_what_it_adds_to_the_quota() {
        let org = OrgId::new();
        let old = stored_image(org);
        let old_id = old.id;
        let mut images = MockImageRepository::new();
        // Full to the byte, but the replaced image (10 bytes) frees more than the upload needs.
        images.expect_total_size().returning(|_| Ok(QUOTA));
        images.expect_get().returning(move |_, _| Ok(Some(old.clone())));
        images.expect_replace().times(1).returning(|_, _, _, _| Ok(()));
        let mut store = MockImageStore::new();
        store.expect_put().times(1).returning(|_, _, _| Ok(()));
        store.expect_delete().returning(|_| Ok(()));
        let request = UploadRequest {
            replace: Some(old_id),
            ..upload(&PNG[..8])
        };
        block_on(service(images, store, Some(OrgRole::Member)).upload(&caller(), org, request)).unwrap();
    }

    #[test]
    fn an_account_uploads_at_most_sixty_images_an_hour() {
        let org = OrgId::new();
        let mut images = MockImageRepository::new();
        images.expect_insert().times(60).returning(|_, _| Ok(()));
        let mut store = MockImageStore::new();
        store.expect_put().times(60).returning(|_, _, _| Ok(()));
        let svc = service(images, store, Some(OrgRole::Member));
        let who = caller();
        for _ in 0..60 {
            block_on(svc.upload(&who, org, upload(PNG))).unwrap();
        }
        let err = block_on(svc.upload(&who, org, upload(PNG))).unwrap_err();
        assert!(matches!(err, MediaError::UploadLimited { retry_after_secs } if retry_after_secs > 0));
        assert_eq!(err.code(), "RATE_LIMITED");
        assert!(err.to_string().contains("60 images in the last hour"));
    }

    #[test]
    fn images_unreferenced_for_a_day_lose_their_rows_then_their_files() {
        let org = OrgId::new();
        let (gone, stuck) = (stored_image(org), stored_image(org));
        let (gone_key, stuck_key) = (gone.storage_key(), stuck.storage_key());
        let mut images = MockImageRepository::new();
        images
            .expect_remove_unreferenced()
            .withf(|cutoff, _| *cutoff == noon() - chrono::Duration::hours(24))
            .times(1)
            .returning(move |_, _| Ok(vec![gone.clone(), stuck.clone()]));
        let mut store = MockImageStore::new();
        let removable = gone_key.clone();
        store
            .expect_delete()
            .withf(move |key| key == removable)
            .times(1)
            .returning(|_| Ok(()));
        store
            .expect_delete()
            .returning(|_| Err(RepoError::backend("deleting a file", "disk")));
        let report = block_on(service(images, store, None).remove_unreferenced()).unwrap();
        assert_eq!(report.removed, 2);
        assert_eq!(report.unremoved_files, vec![stuck_key]);
    }

    #[test]
    fn a_file_that_is_not_an_image_is_refused_before_anything_is_stored() {
        let svc = service(
            MockImageRepository::new(),
            MockImageStore::new(),
            Some(OrgRole::Admin),
        );
        let err = block_on(svc.upload(&caller(), OrgId::new(), upload(b"<html>"))).unwrap_err();
        assert!(matches!(err, MediaError::Rejected(ImageRejection::InvalidType)));
        assert_eq!(err.code(), "INVALID_IMAGE_TYPE");
    }

    /// Nothing may be stored, and nothing replaced, when decoding refuses the content.
    fn refusing_service(inspector: MockImageInspector) -> Svc {
        let mut images = MockImageRepository::new();
        images.expect_insert().never();
        images.expect_replace().never();
        images.expect_get().never();
        let mut store = MockImageStore::new();
        store.expect_put().never();
        store.expect_delete().never();
        service_with(images, store, inspector, Some(OrgRole::Admin), None)
    }

    #[test]
    fn an_image_that_does_not_decode_is_refused_before_anything_is_stored() {
        let svc = refusing_service(inspector_finding(Err(ImageRejection::InvalidType)));
        let request = UploadRequest {
            replace: Some(ImageId::new()),
            ..upload(PNG)
        };
        let err = block_on(svc.upload(&caller(), OrgId::new(), request)).unwrap_err();
        assert!(matches!(err, MediaError::Rejected(ImageRejection::InvalidType)));
    }

    #[test]
    fn a_decompression_bomb_is_refused_as_too_many_pixels() {
        let svc = refusing_service(inspector_finding(Err(ImageRejection::TooManyPixels)));
        let err = block_on(svc.upload(&caller(), OrgId::new(), upload(PNG))).unwrap_err();
        assert!(matches!(err, MediaError::Rejected(ImageRejection::TooManyPixels)));
        assert_eq!(err.code(), "IMAGE_TOO_MANY_PIXELS");

        // An inspector that reports the dimensions without enforcing them is still held to the limits.
        let svc = refusing_service(inspector_finding(Ok(InspectedImage {
            format: ImageFormat::Png,
            width: 100_000,
            height: 100_000,
        })));
        let err = block_on(svc.upload(&caller(), OrgId::new(), upload(PNG))).unwrap_err();
        assert!(matches!(err, MediaError::Rejected(ImageRejection::TooManyPixels)));
    }

    #[test]
    fn content_whose_decoded_format_differs_from_its_magic_bytes_is_refused() {
        let svc = refusing_service(inspector_finding(Ok(InspectedImage {
            format: ImageFormat::Gif,
            width: 16,
            height: 16,
        })));
        let err = block_on(svc.upload(&caller(), OrgId::new(), upload(PNG))).unwrap_err();
        assert!(matches!(err, MediaError::Rejected(ImageRejection::InvalidType)));
    }

    #[test]
    fn replacing_an_image_of_another_organization_is_not_found() {
        let mut images = MockImageRepository::new();
        images.expect_get().returning(|_, _| Ok(None));
        let svc = service(images, MockImageStore::new(), Some(OrgRole::Member));
        let request = UploadRequest {
            replace: Some(ImageId::new()),
            ..upload(PNG)
        };
        let err = block_on(svc.upload(&caller(), OrgId::new(), request)).unwrap_err();
        assert!(matches!(err, MediaError::NotFound));
    }

    #[test]
    fn replacing_an_image_swaps_the_rows_and_removes_the_old_file() {
        let org = OrgId::new();
        let old = stored_image(org);
        let old_id = old.id;
        let mut images = MockImageRepository::new();
        images
            .expect_get()
            .with(eq(org), eq(old_id))
            .returning(move |_, _| Ok(Some(old.clone())));
        images
            .expect_replace()
            .withf(move |o, id, new, audit| {
                let actions: Vec<_> = audit.iter().map(|a| a.action).collect();
                *o == org
                    && *id == old_id
                    && actions == [AuditAction::ImageUploaded, AuditAction::ImageDeleted]
                    && audit[0].target == Some(AuditTarget::image(new.id))
                    && audit[1].target == Some(AuditTarget::image(old_id))
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut store = MockImageStore::new();
        store.expect_put().returning(|_, _, _| Ok(()));
        store
            .expect_delete()
            .with(eq(old_id.to_string()))
            .times(1)
            .returning(|_| Err(RepoError::backend("disk", "read-only")));
        let request = UploadRequest {
            replace: Some(old_id),
            ..upload(PNG)
        };
        let uploaded =
            block_on(service(images, store, Some(OrgRole::Member)).upload(&caller(), org, request)).unwrap();
        assert_eq!(uploaded.unremoved_file, Some(old_id.to_string()));
    }

    #[test]
    fn a_failed_row_insert_removes_the_file_just_stored() {
        let mut images = MockImageRepository::new();
        images
            .expect_insert()
            .returning(|_, _| Err(RepoError::backend("db", "down")));
        let mut store = MockImageStore::new();
        store.expect_put().returning(|_, _, _| Ok(()));
        store.expect_delete().times(1).returning(|_| Ok(()));
        let err = block_on(service(images, store, Some(OrgRole::Member)).upload(
            &caller(),
            OrgId::new(),
            upload(PNG),
        ))
        .unwrap_err();
        assert!(matches!(err, MediaError::Repo(_)));
    }

    #[test]
    fn deleting_removes_the_file_then_the_row() {
        let org = OrgId::new();
        let image = stored_image(org);
        let id = image.id;
        let mut images = MockImageRepository::new();
        images.expect_get().returning(move |_, _| Ok(Some(image.clone())));
        images
            .expect_delete()
            .withf(move |o, i, audit| {
                *o == org
                    && *i == id
                    && audit.action == AuditAction::ImageDeleted
                    && audit.target == Some(AuditTarget::image(id))
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let mut store = MockImageStore::new();
        store
            .expect_delete()
            .with(eq(id.to_string()))
            .times(1)
            .returning(|_| Ok(()));
        block_on(service(images, store, Some(OrgRole::Member)).delete(&caller(), org, id)).unwrap();
    }

    #[test]
    fn only_an_admin_may_delete_or_replace_the_organizations_logo() {
        let org = OrgId::new();
        let image = stored_image(org);
        let id = image.id;
        let logo = Some(format!("https://portal.example.com/api/images/{id}"));
        let refusing = |role| {
            let mut images = MockImageRepository::new();
            let found = image.clone();
            images.expect_get().returning(move |_, _| Ok(Some(found.clone())));
            images.expect_delete().never();
            images.expect_replace().never();
            let mut store = MockImageStore::new();
            store.expect_delete().never();
            store.expect_put().never();
            service_with_logo(images, store, Some(role), logo.clone())
        };
        let member = refusing(OrgRole::Member);
        assert!(matches!(
            block_on(member.delete(&caller(), org, id)),
            Err(MediaError::LogoAdminOnly)
        ));
        let replace = UploadRequest {
            replace: Some(id),
            ..upload(PNG)
        };
        assert!(matches!(
            block_on(member.upload(&caller(), org, replace)),
            Err(MediaError::LogoAdminOnly)
        ));

        let mut images = MockImageRepository::new();
        images.expect_get().returning(move |_, _| Ok(Some(image.clone())));
        images.expect_delete().times(1).returning(|_, _, _| Ok(()));
        let mut store = MockImageStore::new();
        store.expect_delete().times(1).returning(|_| Ok(()));
        let admin = service_with_logo(images, store, Some(OrgRole::Admin), logo.clone());
        block_on(admin.delete(&caller(), org, id)).unwrap();
    }

    #[test]
    fn deleting_an_image_of_another_organization_is_not_found() {
        let mut images = MockImageRepository::new();
        images.expect_get().returning(|_, _| Ok(None));
        let svc = service(images, MockImageStore::new(), Some(OrgRole::Admin));
        let err = block_on(svc.delete(&caller(), OrgId::new(), ImageId::new())).unwrap_err();
        assert_eq!(err.to_string(), "Image not found");
    }

    #[test]
    fn delivery_answers_the_stored_bytes_and_type() {
        let image = stored_image(OrgId::new());
        let mut images = MockImageRepository::new();
        images
            .expect_get_for_delivery()
            .returning(move |_| Ok(Some(image.clone())));
        let mut store = MockImageStore::new();
        store
            .expect_get()
            .returning(|_| Ok(Some((PNG.to_vec(), "image/png".to_owned()))));
        let (bytes, content_type) = block_on(service(images, store, None).fetch(ImageId::new())).unwrap();
        assert_eq!((bytes.as_slice(), content_type.as_str()), (PNG, "image/png"));
    }
}
