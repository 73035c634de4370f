//! PgBouncer in transaction mode in front of a PostgreSQL database of its own, for the tests of instances
//! behind a connection pooler (README "Behind a connection pooler"). Debian's `pgbouncer` runs with its own
//! configuration, authentication file, log and pid file in a temporary folder, on a free port, and is
//! stopped when the guard goes. `scripts/test-tools.sh --pgbouncer` installs it (`make test` does); a
//! machine without it fails these tests rather than skipping them.

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::postgres_admin_url;

/// Server connections PgBouncer opens to PostgreSQL: fewer than the clients of two instances, so that
/// consecutive transactions of one client run on different server connections, and server connections
/// serve many clients, as in production.
const SERVER_CONNECTIONS: u32 = 4;

/// The parts of a `postgres://` URL that PgBouncer's `[databases]` line needs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Server {
    user: String,
    password: Option<String>,
    host: String,
    port: u16,
}

impl Server {
    /// The server of `url` (`postgres://user[:password]@host[:port]/database[?…]`).
    fn of(url: &str) -> Self {
        let rest = url
            .split_once("://")
            .map_or_else(|| panic!("not a postgres:// URL: {url}"), |(_, rest)| rest);
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        let (userinfo, hostport) = authority.rsplit_once('@').unwrap_or(("postgres", authority));
        let (user, password) = match userinfo.split_once(':') {
            Some((user, password)) => (user, Some(password.to_owned())),
            None => (userinfo, None),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((host, port)) => (
                host,
                port.parse().unwrap_or_else(|e| panic!("port of {url}: {e}")),
            ),
            None => (hostport, 5432),
        };
        Self {
            user: user.to_owned(),
            password,
            host: if host.is_empty() { "127.0.0.1" } else { host }.to_owned(),
            port,
        }
    }

    fn url(&self, database: &str) -> String {
        let password = self
            .password
            .as_ref()
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        format!(
            "postgres://{}{password}@{}:{}/{database}",
            self.user, self.host, self.port
        )
    }
}

/// An empty PostgreSQL database of its own on the tests' server (PgBouncer passes no `search_path` option,
/// so the tests behind it get a database rather than a schema); dropped, with whatever still connects to
/// it, when the guard goes.
pub struct PostgresDatabase {
    name: String,
    server: Server,
}

impl PostgresDatabase {
    /// Creates `test_pooled_<random>`.
    ///
    /// # Panics
    /// When the tests' PostgreSQL cannot be reached or the database cannot be made.
    #[must_use]
    pub fn create() -> Self {
        let name = format!("test_pooled_{}", uuid::Uuid::new_v4().simple());
        super::postgres_admin_execute(&format!("CREATE DATABASE \"{name}\""));
        Self {
            name,
            server: Server::of(&postgres_admin_url()),
        }
    }

    /// The URL that reaches the database directly.
    #[must_use]
    pub fn url(&self) -> String {
        self.server.url(&self.name)
    }
}

impl Drop for PostgresDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = PgConnection::establish(&postgres_admin_url()) {
            let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name));
        }
    }
}

/// A running `pgbouncer` in transaction mode whose one database is a [`PostgresDatabase`].
pub struct PgBouncer {
    child: Child,
    port: u16,
    user: String,
    folder: tempfile::TempDir,
}

/// The `pgbouncer` binary: on the `PATH` or where Debian installs it.
fn binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("pgbouncer"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "pgbouncer is not installed: `scripts/test-tools.sh --pgbouncer` installs Debian's (make test \
                 does)"
            )
        })
}

/// PgBouncer refuses to run as root: as root it is told to become `nobody`, who must then read its folder
/// and write its log and pid file there.
fn as_root_run_as_nobody(folder: &Path, command: &mut Command) {
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata("/proc/self").is_ok_and(|me| me.uid() == 0);
    if !root {
        return;
    }
    let nobody = std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|passwd| {
            passwd.lines().find_map(|line| {
                let fields: Vec<&str> = line.split(':').collect();
                (fields.first() == Some(&"nobody")).then(|| (fields[2].parse().ok(), fields[3].parse().ok()))
            })
        })
        .unwrap_or((Some(65534), Some(65534)));
    std::os::unix::fs::chown(folder, nobody.0, nobody.1)
        .unwrap_or_else(|e| panic!("giving {} to nobody: {e}", folder.display()));
    command.args(["-u", "nobody"]);
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|e| panic!("a free port: {e}"))
}

impl PgBouncer {
    /// Starts PgBouncer in transaction mode in front of `database` and waits until it answers.
    ///
    /// # Panics
    /// When `pgbouncer` is not installed or does not answer within 20 s (its log is in the message).
    #[must_use]
    pub fn start(database: &PostgresDatabase) -> Self {
        let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary folder: {e}"));
        let dir = folder.path();
        let port = free_port();
        let server = &database.server;
        let password = server
            .password
            .as_ref()
            .map(|p| format!(" password={p}"))
            .unwrap_or_default();
        let config = format!(
            "[databases]\n\
             portal = host={host} port={server_port} dbname={name} user={user}{password}\n\
             \n\
             [pgbouncer]\n\
             listen_addr = 127.0.0.1\n\
             listen_port = {port}\n\
             unix_socket_dir =\n\
             auth_type = trust\n\
             auth_file = {dir}/users.txt\n\
             pool_mode = transaction\n\
             default_pool_size = {SERVER_CONNECTIONS}\n\
             max_client_conn = 200\n\
             pidfile = {dir}/pgbouncer.pid\n\
             logfile = {dir}/pgbouncer.log\n",
            host = server.host,
            server_port = server.port,
            name = database.name,
            user = server.user,
            dir = dir.display(),
        );
        let write = |file: &str, text: &str| {
            std::fs::write(dir.join(file), text).unwrap_or_else(|e| panic!("{file}: {e}"));
        };
        write("pgbouncer.ini", &config);
        write("users.txt", &format!("\"{}\" \"\"\n", server.user));
        let mut command = Command::new(binary());
        as_root_run_as_nobody(dir, &mut command);
        let child = command
            .arg(dir.join("pgbouncer.ini"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting pgbouncer: {e}"));
        let mut bouncer = Self {
            child,
            port,
            user: server.user.clone(),
            folder,
        };
        bouncer.wait_until_up();
        bouncer
    }

    fn wait_until_up(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("pgbouncer stopped ({status}):\n{}", self.log());
            }
            if let Ok(mut conn) = PgConnection::establish(&self.url())
                && conn.batch_execute("SELECT 1").is_ok()
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "pgbouncer did not answer within 20 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The URL of the database through PgBouncer.
    #[must_use]
    pub fn url(&self) -> String {
        format!("postgres://{}@127.0.0.1:{}/portal", self.user, self.port)
    }

    /// What PgBouncer logged so far.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.folder.path().join("pgbouncer.log")).unwrap_or_default()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_read_from_its_url() {
        assert_eq!(
            Server::of("postgres://postgres@127.0.0.1:5433/postgres?options=-csearch_path%3Dx"),
            Server {
                user: "postgres".into(),
                password: None,
                host: "127.0.0.1".into(),
                port: 5433
            }
        );
        let server = Server::of("postgresql://portal:secret@db.internal/portal");
        assert_eq!(
            server.url("other"),
            "postgres://portal:secret@db.internal:5432/other"
        );
    }
}
