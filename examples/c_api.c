/* memrep from C, through RocksDB's own C API (rocksdb/c.h): the path every
 * binding that wraps the C API or links the system librocksdb takes (Rust,
 * Python, Go, ...). docs/rocksdb.md, "From other languages".
 *
 *   example_c_api [PLUGIN]
 *
 * PLUGIN, when given, is libmemrep_rocksdb.so, loaded with dlopen before the
 * database opens: loading it registers every memrep rep with the librocksdb
 * already in the process (LD_PRELOAD or linking the library does the same).
 * The program then opens a database whose memtables are memrep.Trie, chosen
 * by an options string, writes, reads and scans it, and checks in the
 * OPTIONS file RocksDB wrote that the memtable really is memrep's.
 *
 * That check is the point: RocksDB's C API parses option strings with
 * unsupported options ignored, so without the plugin loaded the same string
 * opens a database on RocksDB's skip list and every call succeeds. The
 * program then says so and exits 1.
 *
 * Exit status: 0 the database ran on memrep.Trie and every check passed;
 * 1 a check failed (the fallback among them); 2 bad arguments. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kRep[] = "memrep.Trie";

static int Fail(const char* what, char* err) {
  fflush(stdout); /* what went well first, then why it stopped */
  fprintf(stderr, "c_api: %s%s%s\n", what, err ? ": " : "", err ? err : "");
  free(err);
  return 1;
}

/* The memtable factory named in the newest OPTIONS-<number> file of `dir`
 * (RocksDB writes one on every open), copied into `out`; 0 if none. */
static int MemtableFactoryInOptions(const char* dir, char* out, size_t out_size) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  char newest[512] = "";
  unsigned long newest_number = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    unsigned long number;
    char tail;
    if (sscanf(e->d_name, "OPTIONS-%lu%c", &number, &tail) == 1 && number >= newest_number) {
      newest_number = number;
      snprintf(newest, sizeof newest, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  FILE* f = newest[0] ? fopen(newest, "r") : NULL;
  if (f == NULL) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) {
    /* "  memtable_factory={id=memrep.Trie;...}" or "  memtable_factory=SkipListFactory" */
    const char* at = strstr(line, "memtable_factory=");
    if (at == NULL) continue;
    at += strlen("memtable_factory=");
    if (strncmp(at, "{id=", 4) == 0) at += 4;
    size_t n = strcspn(at, ";}\r\n");
    if (n >= out_size) n = out_size - 1;
    memcpy(out, at, n);
    out[n] = '\0';
    found = 1;
  }
  fclose(f);
  return found;
}

int main(int argc, char** argv) {
  if (argc > 2) {
    fprintf(stderr, "usage: example_c_api [path/to/libmemrep_rocksdb.so]\n");
    return 2;
  }
  if (argc == 2 && dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == NULL) {
    fprintf(stderr, "c_api: cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  char dir[] = "/tmp/memrep-c-api-XXXXXX";
  if (mkdtemp(dir) == NULL) return Fail("cannot make a temporary directory", NULL);

  /* The options string a binding would pass: any RocksDB option, and the
   * memtable factory with memrep's options (docs/trie.md). */
  rocksdb_options_t* base = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(base, 1);
  rocksdb_options_t* options = rocksdb_options_create();
  char* err = NULL;
  char spec[128];
  snprintf(spec, sizeof spec, "write_buffer_size=4194304;memtable_factory={id=%s}", kRep);
  rocksdb_get_options_from_string(base, spec, options, &err);
  if (err != NULL) return Fail("rocksdb_get_options_from_string", err);
  printf("options string: %s\n", spec);

  rocksdb_t* db = rocksdb_open(options, dir, &err);
  if (err != NULL) return Fail("rocksdb_open", err);

  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  char key[32], value[32];
  for (int i = 0; i < 100; ++i) {
    snprintf(key, sizeof key, "key%03d", i);
    snprintf(value, sizeof value, "value%d", i);
    rocksdb_put(db, wo, key, strlen(key), value, strlen(value), &err);
    if (err != NULL) return Fail("rocksdb_put", err);
  }
  rocksdb_delete(db, wo, "key050", 6, &err);
  if (err != NULL) return Fail("rocksdb_delete", err);

  size_t len = 0;
  char* got = rocksdb_get(db, ro, "key042", 6, &len, &err);
  if (err != NULL) return Fail("rocksdb_get", err);
  if (got == NULL || len != 7 || memcmp(got, "value42", 7) != 0)
    return Fail("key042: wrong value", NULL);
  printf("key042 = %.*s\n", (int)len, got);
  rocksdb_free(got);
  got = rocksdb_get(db, ro, "key050", 6, &len, &err);
  if (err != NULL) return Fail("rocksdb_get", err);
  if (got != NULL) return Fail("key050 was deleted but is found", NULL);
  printf("key050: not found (deleted)\n");

  /* A scan from key048: key048, key049, key051, ... key099, in order. */
  rocksdb_iterator_t* it = rocksdb_create_iterator(db, ro);
  int scanned = 0;
  char previous[32] = "";
  for (rocksdb_iter_seek(it, "key048", 6); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
    size_t klen;
    const char* k = rocksdb_iter_key(it, &klen);
    if (klen >= sizeof key) return Fail("scan: key too long", NULL);
    memcpy(key, k, klen);
    key[klen] = '\0';
    if (strcmp(key, previous) <= 0 || strcmp(key, "key050") == 0) {
      return Fail("scan: out of order or a deleted key", NULL);
    }
    strcpy(previous, key);
    ++scanned;
  }
  rocksdb_iter_get_error(it, &err);
  if (err != NULL) return Fail("scan", err);
  rocksdb_iter_destroy(it);
  if (scanned != 51) return Fail("scan: expected 51 keys from key048", NULL);
  printf("scan from key048: %d keys, last %s\n", scanned, previous);

  rocksdb_readoptions_destroy(ro);
  rocksdb_writeoptions_destroy(wo);
  rocksdb_close(db);
  rocksdb_options_destroy(options);
  rocksdb_options_destroy(base);

  /* The memtable RocksDB really used. */
  char factory[256] = "";
  if (!MemtableFactoryInOptions(dir, factory, sizeof factory)) {
    return Fail("no memtable_factory in the database's OPTIONS file", NULL);
  }
  printf("memtable factory in OPTIONS: %s\n", factory);
  rocksdb_options_t* destroy = rocksdb_options_create();
  rocksdb_destroy_db(destroy, dir, &err);
  rocksdb_options_destroy(destroy);
  free(err);
  if (strcmp(factory, kRep) != 0) {
    fflush(stdout);
    fprintf(stderr,
            "c_api: FAILED: the database ran on %s, not %s: the options string's memtable "
            "factory was ignored because no library registered it (load "
            "libmemrep_rocksdb.so first: dlopen, LD_PRELOAD or link it)\n",
            factory, kRep);
    return 1;
  }
  printf("ok: the database ran on %s\n", factory);
  return 0;
}
