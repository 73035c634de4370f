//! The memory itself: what is kept under which key, the notices that make it forget, and the check that
//! lets a value read after a round be kept.

use domain::identity::models::{LiveSession, LiveSessionInOrg};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use uuid::Uuid;

use super::{contract, fresh_revision};

/// Most entries kept; past it everything is forgotten at once (sessions are few and cheap to read again).
pub(super) const MAX_ENTRIES: usize = 50_000;
/// Most notices of one batch applied one by one; a larger batch forgets everything.
pub(super) const MAX_NOTICES_ONE_BY_ONE: usize = 64;
/// Most notices remembered for the fill check; a read that started before the oldest is not kept.
pub(super) const MAX_NOTICES: usize = 4_096;

/// A request's read: a session, with or without an organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub(super) family: Uuid,
    pub(super) org: Option<Uuid>,
}

/// A value kept, with the account it belongs to (a `u:` notice names the account).
#[derive(Debug, Clone)]
pub(super) enum Kept {
    Session(LiveSession),
    InOrg(LiveSessionInOrg),
}

impl Kept {
    pub(super) const fn user(&self) -> Uuid {
        match self {
            Self::Session(live) | Self::InOrg(LiveSessionInOrg { live, .. }) => live.head.user_id.0,
        }
    }
}

/// What a notice says to forget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    Family(Uuid),
    User(Uuid),
    Org(Uuid),
    /// An app of the organization was added, changed, moved in or out, or deleted.
    Apps(Uuid),
    Everything,
}

impl Notice {
    /// A trigger's notice from its payload. A payload that cannot be read says to forget everything.
    pub(crate) fn parse(payload: &str) -> Self {
        let notice = payload.split_once(':').and_then(|(letter, id)| {
            let id = Uuid::parse_str(id).ok()?;
            Some(match contract::NoticeKind::from_letter(letter)? {
                contract::NoticeKind::Family => Self::Family(id),
                contract::NoticeKind::User => Self::User(id),
                contract::NoticeKind::Org => Self::Org(id),
                contract::NoticeKind::Apps => Self::Apps(id),
            })
        });
        notice.unwrap_or(Self::Everything)
    }

    pub(super) fn names(self, key: &Key, user: Uuid) -> bool {
        match self {
            Self::Family(family) => key.family == family,
            Self::User(id) => user == id,
            Self::Org(org) => key.org == Some(org),
            // Moves the organization's apps revision; what a session read is stays true.
            Self::Apps(_) => false,
            Self::Everything => true,
        }
    }
}

/// Proof that a sync round ended after the request arrived: what is kept may be trusted, and a value read
/// now may be kept if no notice naming it arrives before it is put.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket {
    /// Notices applied when the round ended.
    pub(super) seen: u64,
}

#[derive(Debug)]
pub(super) struct Memory {
    pub(super) entries: HashMap<Key, Kept>,
    /// The apps revision of each organization named by an `a:` notice since everything was forgotten.
    pub(super) apps: HashMap<Uuid, u64>,
    /// The apps revision of every other organization.
    pub(super) apps_base: u64,
    /// Notices applied since start.
    pub(super) applied: u64,
    /// The last [`MAX_NOTICES`] notices, with their number.
    pub(super) recent: VecDeque<(u64, Notice)>,
}

impl Default for Memory {
    fn default() -> Self {
        Self {
            entries: HashMap::new(),
            apps: HashMap::new(),
            apps_base: fresh_revision(),
            applied: 0,
            recent: VecDeque::new(),
        }
    }
}

impl Memory {
    pub(super) fn apply(&mut self, notice: Notice) {
        self.applied += 1;
        if self.recent.len() == MAX_NOTICES {
            self.recent.pop_front();
        }
        self.recent.push_back((self.applied, notice));
        match notice {
            Notice::Everything => {
                self.entries.clear();
                self.forget_apps_revisions();
            }
            Notice::Apps(org) => {
                if self.apps.len() >= MAX_ENTRIES {
                    self.forget_apps_revisions();
                }
                self.apps.insert(org, fresh_revision());
            }
            _ => self.entries.retain(|key, kept| !notice.names(key, kept.user())),
        }
    }

    /// Every organization's apps revision moves.
    pub(super) fn forget_apps_revisions(&mut self) {
        self.apps.clear();
        self.apps_base = fresh_revision();
    }

    pub(super) fn apps_revision(&self, org: Uuid) -> u64 {
        self.apps.get(&org).copied().unwrap_or(self.apps_base)
    }

    /// Applies a batch of notices. Each one looks at every entry, so a large batch (the nightly prune of old
    /// sessions sends one per family) forgets everything at once instead of holding the lock that long.
    pub(super) fn apply_all(&mut self, notices: Vec<Notice>) {
        if notices.len() > MAX_NOTICES_ONE_BY_ONE {
            self.apply(Notice::Everything);
        } else {
            for notice in notices {
                self.apply(notice);
            }
        }
    }

    /// Whether a value read after `ticket` may be kept: no notice since names it, and none was forgotten.
    pub(super) fn may_keep(&self, ticket: Ticket, key: &Key, user: Uuid) -> bool {
        let oldest_remembered = self
            .recent
            .front()
            .map_or(self.applied + 1, |(number, _)| *number);
        if ticket.seen + 1 < oldest_remembered {
            return false;
        }
        !self
            .recent
            .iter()
            .rev()
            .take_while(|(number, _)| *number > ticket.seen)
            .any(|(_, notice)| notice.names(key, user))
    }
}

/// The memory and its counters, shared by the pool's clones and the listener.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    memory: Mutex<Memory>,
    pub(super) hits: AtomicU64,
    pub(super) rounds: AtomicU64,
}

impl Shared {
    pub(super) fn memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies the notices of a round; answers the ticket of the requests it serves.
    pub(crate) fn round_done(&self, notices: impl IntoIterator<Item = Notice>) -> Ticket {
        self.rounds.fetch_add(1, Ordering::Relaxed);
        let notices: Vec<Notice> = notices.into_iter().collect();
        let mut memory = self.memory();
        memory.apply_all(notices);
        Ticket { seen: memory.applied }
    }

    /// Applies notices that arrived between rounds.
    pub(crate) fn apply(&self, notices: impl IntoIterator<Item = Notice>) {
        let notices: Vec<Notice> = notices.into_iter().collect();
        self.memory().apply_all(notices);
    }

    /// Forgets everything (the listening connection failed or was replaced: notices may have been missed).
    pub(crate) fn forget_everything(&self) {
        self.memory().apply(Notice::Everything);
    }

    pub(super) fn get(&self, key: &Key) -> Option<Kept> {
        let kept = self.memory().entries.get(key).cloned();
        if kept.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        kept
    }

    pub(super) fn put(&self, ticket: Ticket, key: Key, kept: Kept) {
        let mut memory = self.memory();
        if !memory.may_keep(ticket, &key, kept.user()) {
            return;
        }
        if memory.entries.len() >= MAX_ENTRIES {
            memory.entries.clear();
        }
        memory.entries.insert(key, kept);
    }
}
