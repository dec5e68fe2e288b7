// A static librocksdb needs the libraries it was built with (compression,
// ...): MEMREP_ROCKSDB_LIBS names them ("-lsnappy -lz ..."). They go at the
// end of the link line, after the librocksdb they serve.
fn main() {
    println!("cargo:rerun-if-env-changed=MEMREP_ROCKSDB_LIBS");
    if let Ok(libs) = std::env::var("MEMREP_ROCKSDB_LIBS") {
        for flag in libs.split_whitespace() {
            println!("cargo:rustc-link-arg={flag}");
        }
    }
}
