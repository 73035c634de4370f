//! Rate-limit counters: per key and window, the previous window read back, atomic under concurrent hits,
//! peeked at without counting, pruned when they stop mattering.

use adapter_db::repos::DieselRateLimitStore;
use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::identity::rate_limit::{Limit, RateLimitStore, WindowCounts};
use std::sync::Arc;

fn window(at_secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_773_576_000 + at_secs, 0).unwrap()
}

contract! {
    async fn hits_count_per_key_and_window(db) {
        let store = DieselRateLimitStore::new(db.clone());
        assert_eq!(store.hit("k1", window(0), 60).await.unwrap(), WindowCounts { previous: 0, current: 1 });
        assert_eq!(store.hit("k1", window(0), 60).await.unwrap(), WindowCounts { previous: 0, current: 2 });
        assert_eq!(store.hit("k2", window(0), 60).await.unwrap(), WindowCounts { previous: 0, current: 1 });
        // The next window starts at one and sees the two of the window before.
        assert_eq!(store.hit("k1", window(60), 60).await.unwrap(), WindowCounts { previous: 2, current: 1 });
        // Two windows later, the first is no longer the previous one.
        assert_eq!(store.hit("k1", window(180), 60).await.unwrap(), WindowCounts { previous: 0, current: 1 });
    }

    async fn concurrent_hits_are_all_counted(db) {
        let store = Arc::new(DieselRateLimitStore::new(db.clone()));
        let hits = (0..20).map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.hit("busy", window(0), 60).await.unwrap().current })
        });
        let mut seen: Vec<u32> = futures::future::join_all(hits)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..=20).collect::<Vec<u32>>());
    }

    async fn peeking_reads_both_windows_and_counts_nothing(db) {
        let store = DieselRateLimitStore::new(db.clone());
        assert_eq!(store.peek("k", window(60), 60).await.unwrap(), WindowCounts { previous: 0, current: 0 });
        store.hit("k", window(0), 60).await.unwrap();
        store.hit("k", window(60), 60).await.unwrap();
        assert_eq!(store.peek("k", window(60), 60).await.unwrap(), WindowCounts { previous: 1, current: 1 });
        assert_eq!(store.peek("k", window(60), 60).await.unwrap(), WindowCounts { previous: 1, current: 1 });
    }

    async fn pruning_removes_counters_two_of_their_windows_after_they_started(db) {
        let store = DieselRateLimitStore::new(db.clone());
        store.hit("short", window(0), 60).await.unwrap();
        store.hit("long", window(0), 3600).await.unwrap();
        // At 121 s the 60-second counter no longer matters; the hour-long one does until 7200 s.
        assert_eq!(store.prune_expired(window(121)).await.unwrap(), 1);
        assert_eq!(store.hit("short", window(0), 60).await.unwrap().current, 1);
        assert_eq!(store.hit("long", window(0), 3600).await.unwrap().current, 2);
        assert_eq!(store.prune_expired(window(7199)).await.unwrap(), 1);
        assert_eq!(store.prune_expired(window(7201)).await.unwrap(), 1);
    }
}

shared_contract! {
    async fn two_instances_share_one_counter(first, second) {
        let one = Arc::new(DieselRateLimitStore::new(first.clone()));
        let two = Arc::new(DieselRateLimitStore::new(second.clone()));
        let hits = (0..20).map(|i| {
            let store = if i % 2 == 0 { Arc::clone(&one) } else { Arc::clone(&two) };
            tokio::spawn(async move { store.hit("shared", window(0), 60).await.unwrap().current })
        });
        let mut seen: Vec<u32> = futures::future::join_all(hits)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..=20).collect::<Vec<u32>>(), "every hit counted once, whichever instance took it");
        // The next window on either instance sees the 20 as its previous window.
        assert_eq!(two.hit("shared", window(60), 60).await.unwrap(), WindowCounts { previous: 20, current: 1 });
        assert_eq!(one.hit("shared", window(60), 60).await.unwrap(), WindowCounts { previous: 20, current: 2 });
    }

    async fn a_sliding_window_limit_holds_across_two_instances(first, second) {
        use domain::identity::rate_limit::{AuthAction, Limit, RateLimitPolicy, RateLimiter};
        use domain::identity::ActionLimits;
        let policy = RateLimitPolicy {
            sign_in: ActionLimits { per_ip: Limit::new(3, 60), per_account: Limit::new(3, 60), per_address: None },
            ..RateLimitPolicy::default()
        };
        // Half-way through a window: half of the previous window's attempts still count.
        let clock = Arc::new(domain::common::clock::FixedClock(window(60) + Duration::seconds(30)));
        let on = |db: &adapter_db::Db| {
            RateLimiter::new(Arc::new(DieselRateLimitStore::new(db.clone())), clock.clone(), policy)
        };
        let (one, two) = (on(first), on(second));
        // Four attempts in the window before (at its start, through the store directly).
        let key = |ip: &str| domain::common::secrets::digest_secret(&RateLimitPolicy::ip_key(AuthAction::SignIn, ip));
        for _ in 0..4 {
            DieselRateLimitStore::new(first.clone()).hit(&key("10.0.0.1"), window(0), 60).await.unwrap();
        }
        // 4 × ½ + 1 = 3 is allowed; the next, on the other instance, is not.
        assert!(!one.check(AuthAction::SignIn, "10.0.0.1", None).await.unwrap().is_limited());
        assert!(two.check(AuthAction::SignIn, "10.0.0.1", None).await.unwrap().is_limited());
        assert!(!two.check(AuthAction::SignIn, "10.0.0.2", None).await.unwrap().is_limited());
    }

    async fn fifty_takes_at_once_on_two_instances_take_no_more_than_the_limit(first, second) {
        let store = Arc::new(DieselRateLimitStore::new(first.clone()));
        let other = Arc::new(DieselRateLimitStore::new(second.clone()));
        let limit = Limit::new(10, 3600);
        let takes = (0..50).map(|i| {
            let store = if i % 2 == 0 { Arc::clone(&store) } else { Arc::clone(&other) };
            tokio::spawn(async move { store.take("ceiling", limit, window(30)).await.unwrap() })
        });
        let taken: Vec<u32> = futures::future::join_all(takes)
            .await
            .into_iter()
            .filter_map(|answer| answer.unwrap().map(|counts| counts.current))
            .collect();
        let mut seen = taken.clone();
        seen.sort_unstable();
        assert_eq!(seen, (1..=10).collect::<Vec<u32>>(), "{taken:?}");
        assert_eq!(store.peek("ceiling", window(0), 3600).await.unwrap().current, 10);
        // A unit given back is taken again, once.
        store.give_back("ceiling", window(0)).await.unwrap();
        assert_eq!(store.take("ceiling", limit, window(40)).await.unwrap().map(|c| c.current), Some(10));
        assert_eq!(store.take("ceiling", limit, window(40)).await.unwrap(), None);
        // The next window leaves what the previous one's weight allows: at a quarter in, 10 × 3/4 = 7.5.
        let next = window(3600 + 900);
        for n in 1..=2 {
            assert_eq!(store.take("ceiling", limit, next).await.unwrap().map(|c| c.current), Some(n));
        }
        assert_eq!(store.take("ceiling", limit, next).await.unwrap(), None);
        // Nothing goes below zero.
        store.give_back("never", window(0)).await.unwrap();
        assert_eq!(store.peek("never", window(0), 3600).await.unwrap().current, 0);
    }
}
