//! SQLite history of runs: diagnose windows and bench suites, one row each, with the full JSON
//! document kept so a later version can re-read what an earlier one measured.
//!
//! The schema is versioned with `PRAGMA user_version`; each migration runs once, in order, inside
//! a transaction, from the first version on.
//!
//! Documents are read back typed ([`Run::read`]); a document written by an older headroom is
//! brought up to what this one writes in one place, [`upgrade`], as it is read from the file.

pub mod history;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("history database {path}: {source}")]
    Sql {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("history database {path}: {what}")]
    Io { path: String, what: String },
    #[error("history database {path}: run {id}: stored document is not valid JSON: {source}")]
    Doc {
        path: String,
        id: i64,
        #[source]
        source: serde_json::Error,
    },
    #[error("history database {path}: run {id} ({kind}): the stored document does not read as this headroom's: {source}")]
    Shape {
        path: String,
        id: i64,
        kind: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("history database {path} has schema version {found}, newer than this headroom knows ({known}): upgrade headroom")]
    TooNew {
        path: String,
        found: i64,
        known: i64,
    },
}

/// Migrations, in order. Index i takes the schema from version i to i + 1.
const MIGRATIONS: &[&str] = &[
    // 1: runs of every kind, with the whole document.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,            -- 'diagnose' | 'bench'
        created REAL NOT NULL,         -- unix seconds
        label TEXT,
        url TEXT,
        engine TEXT,
        model TEXT,
        doc TEXT NOT NULL              -- the command's JSON document
    );
    CREATE INDEX runs_kind_created ON runs(kind, created);
    CREATE INDEX runs_kind_label ON runs(kind, label);",
    // 2: a re-measure names the run it was taken against in a column of its own. Before, only
    // its label said so ("remeasure of 12"); those rows are carried over.
    "ALTER TABLE runs ADD COLUMN remeasure_of INTEGER REFERENCES runs(id);
    UPDATE runs SET remeasure_of = CAST(substr(label, 14) AS INTEGER)
        WHERE kind = 'diagnose' AND label GLOB 'remeasure of [0-9]*';",
];

/// One stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: i64,
    pub kind: String,
    pub created: f64,
    pub label: Option<String>,
    pub url: Option<String>,
    pub engine: Option<String>,
    pub model: Option<String>,
    /// The run this one re-measured (a `headroom remeasure`).
    pub remeasure_of: Option<i64>,
    pub doc: serde_json::Value,
}

impl Run {
    /// The document as the typed struct of its schema (already upgraded when it was read).
    pub fn read<T: serde::de::DeserializeOwned>(&self, path: &Path) -> Result<T, StoreError> {
        T::deserialize(&self.doc).map_err(|source| StoreError::Shape {
            path: path.display().to_string(),
            id: self.id,
            kind: self.kind.clone(),
            source,
        })
    }
}

/// Brings a stored document up to the schema this headroom writes. Every change to a document
/// that older files hold is undone here, and only here:
///
/// * diagnose (`headroom.diagnose/1`) before 0.2 spelled the engine `llamacpp`; it is
///   `llama.cpp` now, as in every other document.
pub fn upgrade(kind: &str, mut doc: serde_json::Value) -> serde_json::Value {
    if kind == "diagnose" {
        if let Some(e) = doc.get_mut("engine") {
            if e.as_str() == Some("llamacpp") {
                *e = serde_json::Value::from("llama.cpp");
            }
        }
    }
    doc
}

/// What a new run is stored with.
#[derive(Debug, Clone, Default)]
pub struct NewRun<'a> {
    pub kind: &'a str,
    pub created: f64,
    pub label: Option<&'a str>,
    pub url: Option<&'a str>,
    pub engine: Option<&'a str>,
    pub model: Option<&'a str>,
    pub remeasure_of: Option<i64>,
}

pub struct Store {
    conn: Connection,
    path: String,
}

/// `$XDG_DATA_HOME/headroom/history.sqlite`, else `~/.local/share/headroom/history.sqlite`.
pub fn default_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(base.join("headroom").join("history.sqlite"))
}

impl Store {
    /// Open (creating the folder and file if needed) and migrate to the current schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let p = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Io {
                path: p.clone(),
                what: format!("cannot create {}: {e}", dir.display()),
            })?;
        }
        let sql = |source| StoreError::Sql {
            path: p.clone(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: p,
                found: version,
                known,
            });
        }
        for (i, m) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = conn.transaction().map_err(sql)?;
            tx.execute_batch(m).map_err(sql)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(sql)?;
            tx.commit().map_err(sql)?;
        }
        Ok(Store { conn, path: p })
    }

    /// Open for reading what is there, creating and writing nothing: `None` when there is no
    /// history yet (no file, an empty file, an SQLite file without tables). A history of an
    /// older schema is ours and is migrated as `open` does; anything else is an error naming
    /// the path. For commands that only read (a mistyped `--db` must not become a database).
    pub fn open_existing(path: &Path) -> Result<Option<Store>, StoreError> {
        let p = path.display().to_string();
        let io = |what: String| StoreError::Io {
            path: p.clone(),
            what,
        };
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e.to_string())),
            Ok(m) if m.is_dir() => return Err(io("is a directory".into())),
            Ok(m) if m.is_file() && m.len() == 0 => return Ok(None),
            Ok(_) => {}
        }
        let sql = |source| StoreError::Sql {
            path: p.clone(),
            source,
        };
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: p,
                found: version,
                known,
            });
        }
        if version == 0 {
            let tables: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(sql)?;
            if tables == 0 {
                return Ok(None);
            }
            return Err(io(
                "an SQLite database, but not a headroom history (no schema version)".into(),
            ));
        }
        if version < known {
            drop(conn);
            return Store::open(path).map(Some);
        }
        Ok(Some(Store { conn, path: p }))
    }

    pub fn schema_version(&self) -> i64 {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap_or(0)
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sql {
            path: self.path.clone(),
            source,
        }
    }

    pub fn save(&self, run: &NewRun, doc: &serde_json::Value) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO runs (kind, created, label, url, engine, model, remeasure_of, doc) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
                params![run.kind, run.created, run.label, run.url, run.engine, run.model, run.remeasure_of, doc.to_string()],
            )
            .map_err(|e| self.sql(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    fn row(&self, r: &rusqlite::Row) -> rusqlite::Result<(Run, String)> {
        Ok((
            Run {
                id: r.get(0)?,
                kind: r.get(1)?,
                created: r.get(2)?,
                label: r.get(3)?,
                url: r.get(4)?,
                engine: r.get(5)?,
                model: r.get(6)?,
                remeasure_of: r.get(7)?,
                doc: serde_json::Value::Null,
            },
            r.get(8)?,
        ))
    }

    fn parse(&self, (mut run, doc): (Run, String)) -> Result<Run, StoreError> {
        let doc = serde_json::from_str(&doc).map_err(|source| StoreError::Doc {
            path: self.path.clone(),
            id: run.id,
            source,
        })?;
        run.doc = upgrade(&run.kind, doc);
        Ok(run)
    }

    const COLS: &'static str = "id, kind, created, label, url, engine, model, remeasure_of, doc";

    pub fn get(&self, id: i64) -> Result<Option<Run>, StoreError> {
        let q = format!("SELECT {} FROM runs WHERE id = ?1", Self::COLS);
        let r = self
            .conn
            .query_row(&q, [id], |r| self.row(r))
            .optional()
            .map_err(|e| self.sql(e))?;
        r.map(|r| self.parse(r)).transpose()
    }

    /// Runs of a kind, oldest first.
    pub fn list(&self, kind: &str) -> Result<Vec<Run>, StoreError> {
        let q = format!(
            "SELECT {} FROM runs WHERE kind = ?1 ORDER BY created, id",
            Self::COLS
        );
        let mut st = self.conn.prepare(&q).map_err(|e| self.sql(e))?;
        let rows = st
            .query_map([kind], |r| self.row(r))
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sql(e))?;
        rows.into_iter().map(|r| self.parse(r)).collect()
    }

    /// The newest run of a kind.
    pub fn latest(&self, kind: &str) -> Result<Option<Run>, StoreError> {
        Ok(self.list(kind)?.pop())
    }

    /// Runs of a kind with this label, oldest first.
    pub fn by_label(&self, kind: &str, label: &str) -> Result<Vec<Run>, StoreError> {
        Ok(self
            .list(kind)?
            .into_iter()
            .filter(|r| r.label.as_deref() == Some(label))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_get_list_and_reopen_keeps_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/history.sqlite");
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version(), MIGRATIONS.len() as i64);
        let doc = serde_json::json!({"primary": {"rule": "R2"}});
        let a = s
            .save(
                &NewRun {
                    kind: "diagnose",
                    created: 1.0,
                    label: Some("x"),
                    ..Default::default()
                },
                &doc,
            )
            .unwrap();
        let b = s
            .save(
                &NewRun {
                    kind: "diagnose",
                    created: 2.0,
                    ..Default::default()
                },
                &doc,
            )
            .unwrap();
        s.save(
            &NewRun {
                kind: "bench",
                created: 3.0,
                ..Default::default()
            },
            &doc,
        )
        .unwrap();
        assert_eq!(s.get(a).unwrap().unwrap().doc, doc);
        assert_eq!(s.latest("diagnose").unwrap().unwrap().id, b);
        assert_eq!(s.list("diagnose").unwrap().len(), 2);
        assert_eq!(s.by_label("diagnose", "x").unwrap()[0].id, a);
        assert!(s.get(999).unwrap().is_none());
        drop(s);
        let s = Store::open(&path).unwrap();
        assert_eq!(s.list("diagnose").unwrap().len(), 2);
    }

    #[test]
    fn old_documents_are_upgraded_where_they_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let s = Store::open(&path).unwrap();
        let old = serde_json::json!({"schema": "headroom.diagnose/1", "engine": "llamacpp"});
        let id = s
            .save(
                &NewRun {
                    kind: "diagnose",
                    created: 1.0,
                    ..Default::default()
                },
                &old,
            )
            .unwrap();
        #[derive(serde::Deserialize)]
        struct Doc {
            engine: String,
        }
        let run = s.get(id).unwrap().unwrap();
        assert_eq!(run.read::<Doc>(&path).unwrap().engine, "llama.cpp");
        // A document that does not read as the type is an error naming the run.
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Other {
            missing: u32,
        }
        let e = run.read::<Other>(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("run {id}")) && e.contains("missing"),
            "{e}"
        );
    }

    #[test]
    fn a_version_1_history_keeps_its_remeasures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let c = Connection::open(&path).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.execute_batch(
            "PRAGMA user_version = 1;
            INSERT INTO runs (kind, created, label, doc) VALUES ('diagnose', 1, NULL, '{}');
            INSERT INTO runs (kind, created, label, doc) VALUES ('diagnose', 2, 'remeasure of 1', '{}');
            INSERT INTO runs (kind, created, label, doc) VALUES ('diagnose', 3, 'remeasure of the fix', '{}');
            INSERT INTO runs (kind, created, label, doc) VALUES ('bench', 4, 'remeasure of 1', '{}');",
        )
        .unwrap();
        drop(c);
        let s = Store::open_existing(&path).unwrap().unwrap();
        assert_eq!(s.schema_version(), MIGRATIONS.len() as i64);
        let of: Vec<_> = s
            .list("diagnose")
            .unwrap()
            .iter()
            .map(|r| r.remeasure_of)
            .collect();
        assert_eq!(
            of,
            vec![None, Some(1), None],
            "only a label that names a run id"
        );
        assert_eq!(s.list("bench").unwrap()[0].remeasure_of, None);
        let id = s
            .save(
                &NewRun {
                    kind: "diagnose",
                    created: 5.0,
                    remeasure_of: Some(2),
                    ..Default::default()
                },
                &serde_json::json!({}),
            )
            .unwrap();
        assert_eq!(s.get(id).unwrap().unwrap().remeasure_of, Some(2));
    }

    #[test]
    fn a_newer_schema_is_refused_with_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let c = Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA user_version = 99").unwrap();
        drop(c);
        let e = Store::open(&path).err().unwrap().to_string();
        assert!(e.contains("newer") && e.contains("99"), "{e}");
    }

    #[test]
    fn garbage_file_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        std::fs::write(&path, b"this is not sqlite at all, not even close......").unwrap();
        assert!(Store::open(&path).is_err());
    }

    #[test]
    fn opening_to_read_creates_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // Nothing there: no history, and still nothing there.
        let missing = dir.path().join("sub/none.sqlite");
        assert!(Store::open_existing(&missing).unwrap().is_none());
        assert!(!missing.exists() && !dir.path().join("sub").exists());
        // An empty file stays empty.
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(Store::open_existing(&empty).unwrap().is_none());
        assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
        // A directory, garbage, and another program's SQLite file are errors naming the path.
        let e = Store::open_existing(dir.path()).err().unwrap().to_string();
        assert!(
            e.contains("is a directory") && e.contains(&dir.path().display().to_string()),
            "{e}"
        );
        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, b"this is not sqlite at all, not even close......").unwrap();
        let e = Store::open_existing(&garbage).err().unwrap().to_string();
        assert!(e.contains("garbage"), "{e}");
        let other = dir.path().join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let before = std::fs::read(&other).unwrap();
        let e = Store::open_existing(&other).err().unwrap().to_string();
        assert!(e.contains("not a headroom history"), "{e}");
        assert_eq!(std::fs::read(&other).unwrap(), before);
        // A history reads back.
        let path = dir.path().join("h.sqlite");
        let s = Store::open(&path).unwrap();
        s.save(
            &NewRun {
                kind: "diagnose",
                created: 1.0,
                ..Default::default()
            },
            &serde_json::json!({}),
        )
        .unwrap();
        drop(s);
        let r = Store::open_existing(&path).unwrap().unwrap();
        assert_eq!(r.list("diagnose").unwrap().len(), 1);
    }
}
