//! SQLite's one writer: a thread of its own that runs the process's transactions one after the other, in
//! the order they were asked for.
//!
//! SQLite lets one writer in at a time. Writers used to take turns on a mutex, each on a blocking thread of
//! its own: under load every hand-over woke another thread, which then waited for a core before it could
//! begin, while the lock sat held and idle (the mixed workload's edits waited 10 ms at the median with their
//! work taking well under one). One thread that takes the next transaction as soon as the last one committed
//! has no such gaps. The thread starts at the first write and ends when the last clone of the pool is gone.

use domain::common::RepoError;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, PoisonError};

/// A transaction to run, which answers its caller itself.
pub(super) type Job = Box<dyn FnOnce() + Send>;

#[derive(Debug, Default)]
pub(super) struct Writer {
    /// The queue of the thread, once started.
    queue: Mutex<Option<Sender<Job>>>,
}

impl Writer {
    /// Queues `job`; starts the thread at first use.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the thread cannot be started.
    pub(super) fn submit(&self, job: Job) -> Result<(), RepoError> {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let sender = match queue.as_ref() {
            Some(sender) => sender,
            None => queue.insert(start()?),
        };
        // The thread never ends while a sender exists (a job that panics is caught), so this cannot fail;
        // should it, the job is dropped and its caller told that the task stopped.
        let _ = sender.send(job);
        Ok(())
    }
}

fn start() -> Result<Sender<Job>, RepoError> {
    let (sender, receiver) = channel::<Job>();
    std::thread::Builder::new()
        .name("sqlite-writer".to_owned())
        .spawn(move || {
            // Ends when every sender is gone: the pool was dropped.
            for job in receiver {
                // A panic inside a transaction is its caller's (it is told the task stopped, as a panic on a
                // blocking thread told it); the connection it held is dropped broken, and the next job runs.
                let _ = catch_unwind(AssertUnwindSafe(job));
            }
        })
        .map_err(|e| RepoError::backend("starting the database's writer thread", e))?;
    Ok(sender)
}
