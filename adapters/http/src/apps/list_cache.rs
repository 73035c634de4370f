//! [`AppListCache`]: the answers of `GET /api/dev/apps` kept per organization with the revision of its apps
//! (`AppRepository::revision`). A kept answer is used only while the organization's revision is the one it
//! was kept with, so that it is always what reading the apps again would answer: every write to an app, by
//! any process, moves the revision. Reading the revision is one small query; listing the apps and writing
//! them as JSON is most of the call's time otherwise.
//!
//! The answers are kept within a byte budget; the least recently used go first.

use actix_web::web::Bytes;
use domain::common::OrgId;
use std::collections::HashMap;
use std::sync::Mutex;

/// The kept answers.
#[derive(Debug)]
pub struct AppListCache {
    budget: usize,
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    by_org: HashMap<OrgId, Kept>,
    bytes: usize,
    /// Counts uses, for "least recently used".
    clock: u64,
}

#[derive(Debug)]
struct Kept {
    revision: u64,
    body: Bytes,
    used: u64,
}

/// At most this many answers are kept, however small.
const MAX_ENTRIES: usize = 4096;

impl Default for AppListCache {
    fn default() -> Self {
        Self::new(Self::DEFAULT_BUDGET)
    }
}

impl AppListCache {
    /// 4 MiB: some fifty lists of a hundred apps.
    pub const DEFAULT_BUDGET: usize = 4 * 1024 * 1024;

    /// A cache keeping at most `budget` bytes of answers.
    #[must_use]
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            entries: Mutex::new(Entries::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic while the lock was held cannot leave an entry half written: the map is still usable.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The answer kept for `org` at `revision`, if any.
    #[must_use]
    pub fn get(&self, org: OrgId, revision: u64) -> Option<Bytes> {
        let mut entries = self.lock();
        entries.clock += 1;
        let now = entries.clock;
        let kept = entries.by_org.get_mut(&org)?;
        if kept.revision != revision {
            return None;
        }
        kept.used = now;
        Some(kept.body.clone())
    }

    /// Keeps `body`, read after the revision `revision` was read, as the answer for `org`. An answer kept
    /// with a later revision stays; an answer larger than the budget is not kept.
    pub fn put(&self, org: OrgId, revision: u64, body: Bytes) {
        if body.len() > self.budget {
            return;
        }
        let mut entries = self.lock();
        if entries
            .by_org
            .get(&org)
            .is_some_and(|kept| kept.revision > revision)
        {
            return;
        }
        if let Some(old) = entries.by_org.remove(&org) {
            entries.bytes -= old.body.len();
        }
        while !entries.by_org.is_empty()
            && (entries.bytes + body.len() > self.budget || entries.by_org.len() >= MAX_ENTRIES)
        {
            let Some(oldest) = entries
                .by_org
                .iter()
                .min_by_key(|(_, kept)| kept.used)
                .map(|(org, _)| *org)
            else {
                break;
            };
            if let Some(evicted) = entries.by_org.remove(&oldest) {
                entries.bytes -= evicted.body.len();
            }
        }
        entries.clock += 1;
        let used = entries.clock;
        entries.bytes += body.len();
        entries.by_org.insert(org, Kept { revision, body, used });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(len: usize) -> Bytes {
        Bytes::from(vec![b'x'; len])
    }

    #[test]
    fn an_answer_is_used_only_at_its_revision() {
        let cache = AppListCache::default();
        let org = OrgId::new();
        assert_eq!(cache.get(org, 1), None);
        cache.put(org, 1, Bytes::from_static(b"[1]"));
        assert_eq!(cache.get(org, 1), Some(Bytes::from_static(b"[1]")));
        assert_eq!(cache.get(org, 2), None);
        assert_eq!(cache.get(OrgId::new(), 1), None);
        cache.put(org, 2, Bytes::from_static(b"[2]"));
        assert_eq!(cache.get(org, 1), None);
        assert_eq!(cache.get(org, 2), Some(Bytes::from_static(b"[2]")));
    }

    #[test]
    fn a_late_answer_of_an_earlier_revision_does_not_replace_a_later_one() {
        let cache = AppListCache::default();
        let org = OrgId::new();
        cache.put(org, 5, Bytes::from_static(b"[5]"));
        cache.put(org, 4, Bytes::from_static(b"[4]"));
        assert_eq!(cache.get(org, 5), Some(Bytes::from_static(b"[5]")));
        assert_eq!(cache.get(org, 4), None);
    }

    #[test]
    fn the_least_recently_used_answers_go_first_and_the_budget_holds() {
        let cache = AppListCache::new(300);
        let (a, b, c) = (OrgId::new(), OrgId::new(), OrgId::new());
        cache.put(a, 1, body(100));
        cache.put(b, 1, body(100));
        cache.put(c, 1, body(100));
        assert!(cache.get(a, 1).is_some());
        cache.put(OrgId::new(), 1, body(150));
        assert!(cache.get(a, 1).is_some(), "used last, so kept");
        assert_eq!(cache.get(b, 1), None);
        assert_eq!(cache.get(c, 1), None);
        assert!(cache.lock().bytes <= 300);
        cache.put(OrgId::new(), 1, body(301));
        assert!(cache.lock().bytes <= 300);
        assert!(
            cache.get(a, 1).is_some(),
            "an answer over the budget evicts nothing"
        );
    }
}
