//! SQLite's one writer: a thread of its own that runs the process's transactions in the order they were
//! asked for, committing those that waited together.
//!
//! SQLite lets one writer in at a time. Writers used to take turns on a mutex, each on a blocking thread of
//! its own: under load every hand-over woke another thread, which then waited for a core before it could
//! begin, while the lock sat held and idle (the mixed workload's edits waited 10 ms at the median with their
//! work taking well under one). Now one thread takes every transaction that is waiting, runs each in a
//! savepoint of one transaction, and commits once: a transaction whose work fails (or panics) is rolled back
//! to its savepoint alone, and every caller is answered after the commit (with the commit's error if it failed).
//! The thread starts at the first write and ends when the last clone of the pool is gone.

use super::transaction::immediate_transaction;
use super::{Db, DbConnection};
use diesel::Connection;
use diesel::connection::TransactionManager;
use domain::common::RepoError;
use std::num::NonZeroU32;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Mutex, PoisonError};

type Manager = <DbConnection as Connection>::TransactionManager;

/// Most transactions committed together.
const MAX_BATCH: usize = 64;

/// What to tell a caller once its batch's commit is known: `None` when it committed.
pub(super) type Answer = Box<dyn FnOnce(Option<String>) + Send>;
/// A transaction: runs its work in a savepoint of the batch's transaction, and answers how to tell its
/// caller.
pub(super) type Job = Box<dyn FnOnce(&mut DbConnection) -> Answer + Send>;

#[derive(Debug, Default)]
pub(super) struct Writer {
    /// The queue of the thread, once started.
    queue: Mutex<Option<Sender<Job>>>,
}

impl Writer {
    /// Queues `job`; starts the thread at first use, with `db` (a clone without this writer, so that the
    /// thread does not keep its own queue open).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the thread cannot be started.
    pub(super) fn submit(&self, job: Job, db: impl FnOnce() -> Db) -> Result<(), RepoError> {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let sender = match queue.as_ref() {
            Some(sender) => sender,
            None => queue.insert(start(db())?),
        };
        // The thread never ends while a sender exists (a job that panics is caught), so this cannot fail;
        // should it, the job is dropped and its caller told that the task stopped.
        let _ = sender.send(job);
        Ok(())
    }
}

fn start(db: Db) -> Result<Sender<Job>, RepoError> {
    let (sender, receiver) = channel::<Job>();
    std::thread::Builder::new()
        .name("sqlite-writer".to_owned())
        .spawn(move || run(&db, &receiver))
        .map_err(|e| RepoError::backend("starting the database's writer thread", e))?;
    Ok(sender)
}

/// Ends when every sender is gone: the pool was dropped.
fn run(db: &Db, receiver: &Receiver<Job>) {
    let mut pending: Vec<Job> = Vec::new();
    loop {
        if pending.is_empty() {
            match receiver.recv() {
                Ok(job) => pending.push(job),
                Err(_) => return,
            }
        }
        while pending.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(job) => pending.push(job),
                Err(_) => break,
            }
        }
        pending = batch(db, pending);
    }
}

/// Runs `jobs` in one transaction and answers their callers; answers the jobs not run (those after one that
/// panicked when the batch could not be saved: it is rolled back, and they go into the next one).
///
/// A job that panics is its caller's failure alone (it is told the task stopped, as a panic on a blocking
/// thread told it): its savepoint is rolled back, which undoes whatever it wrote, and the batch goes on, so
/// that the transactions committed with it are not failed for it. Only when that rollback fails (the
/// connection is broken) is the whole batch rolled back and its callers told so.
fn batch(db: &Db, jobs: Vec<Job>) -> Vec<Job> {
    let mut answers: Vec<Answer> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    let outcome = db.on_connection(false, |conn| {
        immediate_transaction(conn, |conn| {
            let depth = transaction_depth(conn)?;
            for job in jobs.by_ref() {
                match catch_unwind(AssertUnwindSafe(|| job(conn))) {
                    Ok(answer) => answers.push(answer),
                    Err(_) => roll_back_to(conn, depth)?,
                }
            }
            Ok(())
        })
        .map_err(RepoError::from)
    });
    let failure = outcome.err().map(|error| error.to_string());
    for answer in answers {
        answer(failure.clone());
    }
    jobs.collect()
}

/// How many transactions and savepoints the connection is inside.
fn transaction_depth(conn: &mut DbConnection) -> Result<u32, RepoError> {
    Manager::transaction_manager_status_mut(conn)
        .transaction_depth()
        .map(|depth| depth.map_or(0, NonZeroU32::get))
        .map_err(|e| RepoError::backend("reading the depth of a transaction", e))
}

/// Rolls back the savepoints a panicking job left open (its own, and any it nested inside it), down to
/// `depth`: the batch's transaction. A failure here leaves the connection unusable: the batch fails.
fn roll_back_to(conn: &mut DbConnection, depth: u32) -> Result<(), RepoError> {
    while transaction_depth(conn)? > depth {
        Manager::rollback_transaction(conn).map_err(|e| {
            RepoError::backend(
                "committing a batch of transactions",
                format!("another transaction of the batch panicked and could not be rolled back: {e}"),
            )
        })?;
    }
    Ok(())
}
