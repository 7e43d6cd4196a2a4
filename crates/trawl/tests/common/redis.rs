//! A real redis-server for the tests of shared crawls (installed by the README's test command).

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// A redis-server with AOF on a free loopback port, restartable on the same port and data.
pub struct Redis {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    /// Its `requirepass`, if it has one.
    password: Option<&'static str>,
}

impl Redis {
    /// A redis-server on a free port. A port found free can be taken before redis-server binds it (by
    /// another test's server, or as the source port of a connection), so a server that exits at once is
    /// started again on another port.
    pub fn start() -> Redis {
        Redis::start_with(None)
    }

    /// A redis-server that asks for `password` (`requirepass`).
    #[allow(dead_code)]
    pub fn start_with_password(password: &'static str) -> Redis {
        Redis::start_with(Some(password))
    }

    fn start_with(password: Option<&'static str>) -> Redis {
        let mut r = Redis {
            child: None,
            port: 0,
            dir: tempfile::tempdir().unwrap(),
            password,
        };
        for _ in 0..5 {
            r.port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            if r.try_start() {
                return r;
            }
        }
        panic!("redis-server did not start on any of five free ports");
    }

    pub fn url(&self) -> String {
        match self.password {
            Some(pw) => format!("redis://:{pw}@127.0.0.1:{}/0", self.port),
            None => format!("redis://127.0.0.1:{}/0", self.port),
        }
    }

    /// Starts it again on its port, with its data.
    pub fn restart(&mut self) {
        assert!(
            self.try_start(),
            "redis-server did not start again on port {}",
            self.port
        );
    }

    /// Starts redis-server on `self.port`; `true` once it is the one answering there (its own process id,
    /// asked with redis-cli: a bare TCP connect may reach another listener, or the socket itself), `false` if
    /// it exited.
    fn try_start(&mut self) -> bool {
        let mut child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .args(self.password.iter().flat_map(|pw| ["--requirepass", pw]))
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is not installed: run the README's test command");
        let started = Instant::now();
        while answering_pid(self.port, self.password) != Some(child.id()) {
            if child.try_wait().unwrap().is_some() {
                return false;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.child = Some(child);
        true
    }

    /// Empties it (`FLUSHALL`): what a restart without persistence leaves.
    pub fn flush(&self) {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(auth(self.password))
            .arg("FLUSHALL")
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).contains("OK"));
    }

    /// Sends it `signal` (`-STOP`: it stops answering and its connections stay open, as with a dead host or a
    /// dropped link; `-CONT`: it goes on).
    pub fn signal(&self, signal: &str) {
        if let Some(c) = &self.child {
            let _ = Command::new("kill")
                .args([signal, &c.id().to_string()])
                .status();
        }
    }

    /// Stops it (SIGTERM: the AOF is complete).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let _ = c.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// redis-cli's arguments for `password`.
fn auth(password: Option<&str>) -> Vec<&str> {
    password.map_or(Vec::new(), |pw| vec!["-a", pw, "--no-auth-warning"])
}

/// The process id of the redis-server answering on `port`, if one answers.
fn answering_pid(port: u16, password: Option<&str>) -> Option<u32> {
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .args(auth(password))
        .args(["INFO", "server"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("process_id:")?.trim().parse().ok())
}
