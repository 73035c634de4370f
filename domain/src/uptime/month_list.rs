//! Which apps one page of the App Status tab shows: the tab's search, its status filter and its pages, over
//! every app of the month (monitored apps and apps with checks in the month).
//!
//! The page is chosen before any rollup is read, so a month view reads the days of one page's apps only,
//! however many apps the platform has.

use crate::apps::{AppStoreStatus, PackageName};

/// Apps on a page when the caller does not say (the tab's page).
pub const DEFAULT_PAGE_SIZE: u32 = 25;
/// Most apps on one page.
pub const MAX_PAGE_SIZE: u32 = 100;

/// An app of a month view, as listed before its days are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthApp {
    pub package_name: PackageName,
    pub name: String,
    pub store_status: AppStoreStatus,
}

impl MonthApp {
    /// Whether the monitor checks it now (SUBMITTED or PUBLISHED); other apps are listed for their checks
    /// of the month only.
    #[must_use]
    pub const fn is_monitored(&self) -> bool {
        self.store_status.is_monitored()
    }
}

/// The status filter of the tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusFilter {
    #[default]
    All,
    Submitted,
    Published,
}

impl StatusFilter {
    /// `ALL`, `SUBMITTED` or `PUBLISHED` (any case); `None` otherwise.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_uppercase().as_str() {
            "" | "ALL" => Some(Self::All),
            "SUBMITTED" => Some(Self::Submitted),
            "PUBLISHED" => Some(Self::Published),
            _ => None,
        }
    }

    fn keeps(self, app: &MonthApp) -> bool {
        match self {
            Self::All => true,
            Self::Submitted => app.store_status == AppStoreStatus::Submitted,
            Self::Published => app.store_status == AppStoreStatus::Published,
        }
    }
}

/// What a page of the tab asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthListQuery {
    /// Part of an app's name or package name, any case; empty for every app.
    pub search: String,
    pub status: StatusFilter,
    /// 1-based.
    pub page: u32,
    pub page_size: u32,
}

impl Default for MonthListQuery {
    fn default() -> Self {
        Self {
            search: String::new(),
            status: StatusFilter::All,
            page: 1,
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

/// A bad page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("Page must be a whole number from 1")]
    Page,
    #[error("Page size must be between 1 and 100")]
    PageSize,
}

impl MonthListQuery {
    /// Checks the page and its size.
    ///
    /// # Errors
    /// [`PageError`] for a page below 1 or a size outside 1–[`MAX_PAGE_SIZE`].
    pub fn validate(&self) -> Result<(), PageError> {
        if self.page == 0 {
            return Err(PageError::Page);
        }
        if self.page_size == 0 || self.page_size > MAX_PAGE_SIZE {
            return Err(PageError::PageSize);
        }
        Ok(())
    }
}

/// One page of the month's apps and the counts the tab shows around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthListPage {
    /// The page's apps, by package name.
    pub apps: Vec<MonthApp>,
    /// Apps that match the search and the filter.
    pub matching: u32,
    /// Every app of the month.
    pub total: u32,
}

/// Filters `apps` (any order) and cuts out the asked page; a page past the end is empty.
#[must_use]
pub fn select_page(mut apps: Vec<MonthApp>, query: &MonthListQuery) -> MonthListPage {
    let total = u32::try_from(apps.len()).unwrap_or(u32::MAX);
    let needle = query.search.trim().to_lowercase();
    apps.retain(|app| {
        query.status.keeps(app)
            && (needle.is_empty()
                || app.package_name.as_str().to_lowercase().contains(&needle)
                || app.name.to_lowercase().contains(&needle))
    });
    apps.sort_by(|a, b| a.package_name.cmp(&b.package_name));
    let matching = u32::try_from(apps.len()).unwrap_or(u32::MAX);
    let start = (query.page.saturating_sub(1) as usize).saturating_mul(query.page_size as usize);
    let page = apps
        .into_iter()
        .skip(start)
        .take(query.page_size as usize)
        .collect();
    MonthListPage {
        apps: page,
        matching,
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(package: &str, name: &str, status: AppStoreStatus) -> MonthApp {
        MonthApp {
            package_name: PackageName::parse(package).unwrap(),
            name: name.to_owned(),
            store_status: status,
        }
    }

    fn packages(page: &MonthListPage) -> Vec<&str> {
        page.apps.iter().map(|a| a.package_name.as_str()).collect()
    }

    fn fleet() -> Vec<MonthApp> {
        vec![
            app("com.c.notes", "Notes", AppStoreStatus::Published),
            app("com.a.maps", "Maps", AppStoreStatus::Submitted),
            app("com.b.translate", "Live Translate", AppStoreStatus::Published),
            app("com.d.old", "Old", AppStoreStatus::Development),
        ]
    }

    #[test]
    fn pages_are_cut_in_package_order_with_the_counts() {
        let query = MonthListQuery {
            page_size: 3,
            ..MonthListQuery::default()
        };
        let first = select_page(fleet(), &query);
        assert_eq!(packages(&first), ["com.a.maps", "com.b.translate", "com.c.notes"]);
        assert_eq!((first.matching, first.total), (4, 4));
        let second = select_page(
            fleet(),
            &MonthListQuery {
                page: 2,
                ..query.clone()
            },
        );
        assert_eq!(packages(&second), ["com.d.old"]);
        let past = select_page(fleet(), &MonthListQuery { page: 9, ..query });
        assert!(past.apps.is_empty());
        assert_eq!(past.matching, 4);
    }

    #[test]
    fn the_search_matches_name_or_package_in_any_case_and_the_filter_the_store_status() {
        let by_name = MonthListQuery {
            search: "  TRANS ".into(),
            ..MonthListQuery::default()
        };
        assert_eq!(packages(&select_page(fleet(), &by_name)), ["com.b.translate"]);
        let by_package = MonthListQuery {
            search: "com.a".into(),
            ..MonthListQuery::default()
        };
        assert_eq!(packages(&select_page(fleet(), &by_package)), ["com.a.maps"]);
        let published = MonthListQuery {
            status: StatusFilter::Published,
            ..MonthListQuery::default()
        };
        let page = select_page(fleet(), &published);
        assert_eq!(packages(&page), ["com.b.translate", "com.c.notes"]);
        assert_eq!((page.matching, page.total), (2, 4));
        let none = MonthListQuery {
            search: "nothing".into(),
            status: StatusFilter::Submitted,
            ..MonthListQuery::default()
        };
        assert!(select_page(fleet(), &none).apps.is_empty());
    }

    #[test]
    fn page_and_size_are_checked_and_the_filter_parsed() {
        assert_eq!(MonthListQuery::default().validate(), Ok(()));
        let zero = MonthListQuery {
            page: 0,
            ..MonthListQuery::default()
        };
        assert_eq!(zero.validate(), Err(PageError::Page));
        for size in [0, MAX_PAGE_SIZE + 1] {
            let query = MonthListQuery {
                page_size: size,
                ..MonthListQuery::default()
            };
            assert_eq!(query.validate(), Err(PageError::PageSize));
        }
        assert_eq!(StatusFilter::parse("published"), Some(StatusFilter::Published));
        assert_eq!(StatusFilter::parse(""), Some(StatusFilter::All));
        assert_eq!(StatusFilter::parse("REJECTED"), None);
        assert!(!fleet()[3].is_monitored());
        assert!(fleet()[0].is_monitored());
    }
}
