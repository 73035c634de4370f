//! The review desk of platform staff (PRODUCT.md §5): the dashboard and the review queue, each composed of
//! the review use cases, the platform-role counts and the apps' latest health.

use std::collections::HashMap;
use std::sync::Arc;

use super::platform::{PlatformToolsError, RoleCounts};
use super::{ReviewError, ReviewService, ReviewedApp, platform::PlatformTools};
use crate::apps::PackageName;
use crate::apps::status::StatusCounts;
use crate::common::Caller;
use crate::uptime::{HealthState, UptimeError, UptimeService};

/// An app waiting for review, with its latest health (`None` before its first check).
#[derive(Debug, Clone)]
pub struct QueuedApp {
    pub reviewed: ReviewedApp,
    pub health: Option<HealthState>,
}

/// The staff dashboard: counts per status, the platform-role counts, the newest submissions.
#[derive(Debug, Clone)]
pub struct DeskDashboard {
    pub counts: StatusCounts,
    pub roles: RoleCounts,
    pub recent_submissions: Vec<QueuedApp>,
}

/// What the desk's use cases refuse with: the error of the use case that refused.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error(transparent)]
    Tools(#[from] PlatformToolsError),
    #[error(transparent)]
    Uptime(#[from] UptimeError),
}

/// The review desk's use cases (platform admins and reviewers; anyone else is refused by each part).
pub struct ReviewDesk {
    reviews: Arc<ReviewService>,
    tools: Arc<PlatformTools>,
    uptime: Arc<UptimeService>,
}

impl ReviewDesk {
    #[must_use]
    pub const fn new(
        reviews: Arc<ReviewService>,
        tools: Arc<PlatformTools>,
        uptime: Arc<UptimeService>,
    ) -> Self {
        Self {
            reviews,
            tools,
            uptime,
        }
    }

    /// The dashboard (`GET /api/admin/apps/stats`).
    ///
    /// # Errors
    /// [`DeskError::Review`] (`Forbidden` for anyone but staff), or a store failure of any part.
    pub async fn dashboard(&self, caller: &Caller) -> Result<DeskDashboard, DeskError> {
        let dashboard = self.reviews.dashboard(caller).await?;
        let roles = self.tools.role_counts(caller).await?;
        let health = self.health(caller).await?;
        Ok(DeskDashboard {
            counts: dashboard.counts,
            roles,
            recent_submissions: with_health(dashboard.recent_submissions, &health),
        })
    }

    /// The review queue: every SUBMITTED app, oldest submission first (`GET /api/admin/apps/submitted`).
    ///
    /// # Errors
    /// As [`ReviewDesk::dashboard`].
    pub async fn queue(&self, caller: &Caller) -> Result<Vec<QueuedApp>, DeskError> {
        let queue = self.reviews.submitted(caller).await?;
        let health = self.health(caller).await?;
        Ok(with_health(queue, &health))
    }

    async fn health(&self, caller: &Caller) -> Result<HashMap<PackageName, HealthState>, DeskError> {
        Ok(self
            .uptime
            .status_all(caller)
            .await?
            .into_iter()
            .filter_map(|h| h.health.map(|health| (h.package_name, health)))
            .collect())
    }
}

fn with_health(apps: Vec<ReviewedApp>, health: &HashMap<PackageName, HealthState>) -> Vec<QueuedApp> {
    apps.into_iter()
        .map(|reviewed| QueuedApp {
            health: health.get(&reviewed.app.package_name).copied(),
            reviewed,
        })
        .collect()
}
