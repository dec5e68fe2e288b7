//! memrep from Rust through librocksdb-sys (crates.io), linked against the
//! system librocksdb (Debian 12's 7.8.3) instead of the RocksDB it bundles.
//! Run with the plugin loaded: LD_PRELOAD=.../libmemrep_rocksdb.so target/debug/memrep_rust_sys
//! (docs/rocksdb.md, "From other languages"). Exit status 1 if RocksDB ignored
//! the memtable factory (the plugin not loaded) and ran on its skip list.
use librocksdb_sys as ffi;
use std::ffi::{CStr, CString};
use std::ptr;

fn check(err: *mut std::os::raw::c_char, what: &str) {
    if !err.is_null() {
        let msg = unsafe { CStr::from_ptr(err) }
            .to_string_lossy()
            .into_owned();
        panic!("{what}: {msg}");
    }
}

/// The memtable factory named in the newest OPTIONS-<number> file of `dir`.
fn memtable_factory(dir: &std::path::Path) -> Option<String> {
    let newest = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| Some((n.strip_prefix("OPTIONS-")?.parse::<u64>().ok()?, n)))
        .max()?;
    let text = std::fs::read_to_string(dir.join(newest.1)).ok()?;
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("memtable_factory="))?;
    let id = line.strip_prefix("{id=").unwrap_or(line);
    Some(id.split(|c| c == ';' || c == '}').next()?.to_string())
}

fn main() {
    let dir = std::env::temp_dir().join(format!("memrep-rust-{}", std::process::id()));
    let path = CString::new(dir.to_str().unwrap()).unwrap();
    let spec = CString::new("memtable_factory={id=memrep.Trie}").unwrap();
    unsafe {
        let base = ffi::rocksdb_options_create();
        ffi::rocksdb_options_set_create_if_missing(base, 1);
        let options = ffi::rocksdb_options_create();
        let mut err = ptr::null_mut();
        ffi::rocksdb_get_options_from_string(base, spec.as_ptr(), options, &mut err);
        check(err, "rocksdb_get_options_from_string");
        let db = ffi::rocksdb_open(options, path.as_ptr(), &mut err);
        check(err, "rocksdb_open");
        let wo = ffi::rocksdb_writeoptions_create();
        let ro = ffi::rocksdb_readoptions_create();
        for i in 0..100 {
            let (k, v) = (format!("key{i:03}"), format!("value{i}"));
            ffi::rocksdb_put(
                db,
                wo,
                k.as_ptr() as _,
                k.len(),
                v.as_ptr() as _,
                v.len(),
                &mut err,
            );
            check(err, "rocksdb_put");
        }
        let mut len = 0usize;
        let got = ffi::rocksdb_get(db, ro, b"key042".as_ptr() as _, 6, &mut len, &mut err);
        check(err, "rocksdb_get");
        let value = std::slice::from_raw_parts(got as *const u8, len).to_vec();
        ffi::rocksdb_free(got as _);
        assert_eq!(value, b"value42");
        println!("key042 = {}", String::from_utf8_lossy(&value));
        let it = ffi::rocksdb_create_iterator(db, ro);
        ffi::rocksdb_iter_seek(it, b"key090".as_ptr() as _, 6);
        let mut keys = Vec::new();
        while ffi::rocksdb_iter_valid(it) != 0 {
            let mut klen = 0usize;
            let k = ffi::rocksdb_iter_key(it, &mut klen);
            keys.push(
                String::from_utf8_lossy(std::slice::from_raw_parts(k as *const u8, klen))
                    .into_owned(),
            );
            ffi::rocksdb_iter_next(it);
        }
        ffi::rocksdb_iter_destroy(it);
        assert_eq!(keys.len(), 10);
        println!(
            "scan from key090: {} keys, {} .. {}",
            keys.len(),
            keys[0],
            keys[9]
        );
        ffi::rocksdb_readoptions_destroy(ro);
        ffi::rocksdb_writeoptions_destroy(wo);
        ffi::rocksdb_close(db);
        ffi::rocksdb_options_destroy(options);
        ffi::rocksdb_options_destroy(base);
    }
    let factory = memtable_factory(&dir).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    println!("memtable factory in OPTIONS: {factory}");
    if factory != "memrep.Trie" {
        eprintln!(
            "FAILED: RocksDB ignored memtable_factory and ran on {factory}: \
                   load libmemrep_rocksdb.so (LD_PRELOAD) first"
        );
        std::process::exit(1);
    }
}
