//! memrep from Rust, through the `rocksdb` crate: a database whose memtables
//! are memrep.SortedHash, chosen by an options string, written, read and
//! scanned; then the OPTIONS file RocksDB wrote says which memtable it really
//! had. RocksDB's C API ignores a memtable factory no library registered, so
//! against a librocksdb without memrep the same program runs on the skip list:
//! it then says so and exits 1.
//!
//! Exit status: 0 the database ran on memrep.SortedHash and every check
//! passed; 1 a check failed (the fallback among them).
use rocksdb::{Direction, IteratorMode, Options, DB};
use std::path::Path;
use std::process::ExitCode;

const REP: &str = "memrep.SortedHash";

/// The memtable factory named in the newest OPTIONS-<number> file of `dir`.
fn memtable_factory_in_options(dir: &Path) -> Option<String> {
    let newest = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let number: u64 = name.strip_prefix("OPTIONS-")?.parse().ok()?;
            Some((number, e.path()))
        })
        .max()?;
    let text = std::fs::read_to_string(newest.1).ok()?;
    // "  memtable_factory={id=memrep.SortedHash;...}" or "  memtable_factory=SkipListFactory"
    let line = text.lines().find_map(|l| l.trim().strip_prefix("memtable_factory="))?;
    let line = line.strip_prefix("{id=").unwrap_or(line);
    Some(line.split([';', '}']).next()?.to_string())
}

fn run(dir: &Path) -> Result<bool, String> {
    let mut base = Options::default();
    base.create_if_missing(true);
    let spec = format!("write_buffer_size=4194304;memtable_factory={{id={REP}}}");
    let options = base.get_options_from_string(&spec).map_err(|e| format!("options: {e}"))?;
    println!("options string: {spec}");
    let db = DB::open(&options, dir).map_err(|e| format!("open: {e}"))?;

    for i in 0..100 {
        db.put(format!("key{i:03}"), format!("value{i}")).map_err(|e| format!("put: {e}"))?;
    }
    db.delete("key050").map_err(|e| format!("delete: {e}"))?;
    match db.get("key042").map_err(|e| format!("get: {e}"))? {
        Some(v) if v == b"value42" => println!("key042 = {}", String::from_utf8_lossy(&v)),
        other => return Err(format!("key042: wrong value {other:?}")),
    }
    if db.get("key050").map_err(|e| format!("get: {e}"))?.is_some() {
        return Err("key050 was deleted but is found".into());
    }
    println!("key050: not found (deleted)");

    // A scan from key048: key048, key049, key051, ... key099, in order.
    let mut keys = Vec::new();
    for item in db.iterator(IteratorMode::From(b"key048", Direction::Forward)) {
        let (k, _) = item.map_err(|e| format!("scan: {e}"))?;
        keys.push(String::from_utf8_lossy(&k).into_owned());
    }
    let ordered = keys.windows(2).all(|w| w[0] < w[1]);
    if keys.len() != 51 || !ordered || keys.iter().any(|k| k == "key050") {
        return Err(format!("scan from key048: {} keys, ordered {ordered}", keys.len()));
    }
    println!("scan from key048: {} keys, last {}", keys.len(), keys[keys.len() - 1]);
    // A flush reads the whole memtable out in order, into a table file.
    db.flush().map_err(|e| format!("flush: {e}"))?;
    if db.get("key099").map_err(|e| format!("get: {e}"))?.as_deref() != Some(b"value99") {
        return Err("key099: wrong value after the flush".into());
    }
    println!("flushed; key099 read back from the table file");
    drop(db);

    let factory = memtable_factory_in_options(dir).ok_or("no memtable_factory in OPTIONS")?;
    println!("memtable factory in OPTIONS: {factory}");
    if factory != REP {
        println!("FAILED: the database ran on {factory}, not {REP} (is memrep in the librocksdb linked?)");
        return Ok(false);
    }
    println!("ok: the database ran on {REP}");
    Ok(true)
}

fn main() -> ExitCode {
    let dir = std::env::temp_dir().join(format!("memrep-rust-{}", std::process::id()));
    let result = run(&dir);
    let _ = DB::destroy(&Options::default(), &dir);
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("rust: {e}");
            ExitCode::FAILURE
        }
    }
}
