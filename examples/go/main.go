// memrep from Go, through grocksdb: a database whose memtables are
// memrep.Auto, chosen by an options string, written, read and scanned; then
// the OPTIONS file RocksDB wrote says which memtable it really had. RocksDB's
// C API ignores a memtable factory no library registered, so against a
// librocksdb without memrep the same program runs on the skip list: it then
// says so and exits 1.
//
// Built against a librocksdb 11.8.1 that holds memrep in-tree, with every
// library it needs in CGO_LDFLAGS (the grocksdb_no_link tag):
//
//	CGO_CFLAGS=-I<tree>/include CGO_LDFLAGS="-L<tree> -lrocksdb -lstdc++ -lm <its PLATFORM_LDFLAGS>" \
//	  go run -tags grocksdb_no_link .
//
// Exit status: 0 the database ran on memrep.Auto and every check passed; 1 a
// check failed (the fallback among them).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"
)

const rep = "memrep.Auto"

// memtableFactoryInOptions is the memtable factory named in the newest
// OPTIONS-<number> file of dir.
func memtableFactoryInOptions(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil {
		return "", err
	}
	newest, newestNumber := "", uint64(0)
	for _, name := range names {
		n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(name), "OPTIONS-"), 10, 64)
		if err == nil && n >= newestNumber {
			newest, newestNumber = name, n
		}
	}
	if newest == "" {
		return "", fmt.Errorf("no OPTIONS file in %s", dir)
	}
	text, err := os.ReadFile(newest)
	if err != nil {
		return "", err
	}
	// "  memtable_factory={id=memrep.Auto;...}" or "  memtable_factory=SkipListFactory"
	for _, line := range strings.Split(string(text), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "memtable_factory="); ok {
			v = strings.TrimPrefix(v, "{id=")
			if fields := strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '}' }); len(fields) > 0 {
				return fields[0], nil
			}
			return "", fmt.Errorf("an empty memtable_factory in %s", newest)
		}
	}
	return "", fmt.Errorf("no memtable_factory in %s", newest)
}

func run(dir string) (bool, error) {
	base := grocksdb.NewDefaultOptions()
	base.SetCreateIfMissing(true)
	spec := "write_buffer_size=4194304;memtable_factory={id=" + rep + "}"
	options, err := grocksdb.GetOptionsFromString(base, spec)
	if err != nil {
		return false, fmt.Errorf("options: %w", err)
	}
	fmt.Println("options string:", spec)
	db, err := grocksdb.OpenDb(options, dir)
	if err != nil {
		return false, fmt.Errorf("open: %w", err)
	}
	wo, ro := grocksdb.NewDefaultWriteOptions(), grocksdb.NewDefaultReadOptions()
	for i := 0; i < 100; i++ {
		if err := db.Put(wo, []byte(fmt.Sprintf("key%03d", i)), []byte(fmt.Sprintf("value%d", i))); err != nil {
			return false, fmt.Errorf("put: %w", err)
		}
	}
	if err := db.Delete(wo, []byte("key050")); err != nil {
		return false, fmt.Errorf("delete: %w", err)
	}
	v, err := db.GetBytes(ro, []byte("key042"))
	if err != nil || string(v) != "value42" {
		return false, fmt.Errorf("key042: %q, %v", v, err)
	}
	fmt.Println("key042 =", string(v))
	if v, err := db.GetBytes(ro, []byte("key050")); err != nil || v != nil {
		return false, fmt.Errorf("key050 was deleted but is found: %q, %v", v, err)
	}
	fmt.Println("key050: not found (deleted)")

	// A scan from key048: key048, key049, key051, ... key099, in order.
	it := db.NewIterator(ro)
	var keys []string
	for it.Seek([]byte("key048")); it.Valid(); it.Next() {
		k := it.Key()
		key := string(k.Data())
		k.Free()
		if (len(keys) > 0 && key <= keys[len(keys)-1]) || key == "key050" {
			return false, fmt.Errorf("scan: %s out of order or deleted", key)
		}
		keys = append(keys, key)
	}
	if err := it.Err(); err != nil {
		return false, fmt.Errorf("scan: %w", err)
	}
	it.Close()
	if len(keys) != 51 {
		return false, fmt.Errorf("scan from key048: %d keys, not 51", len(keys))
	}
	fmt.Printf("scan from key048: %d keys, last %s\n", len(keys), keys[len(keys)-1])
	// A flush reads the whole memtable out in order, into a table file.
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	if err := db.Flush(fo); err != nil {
		return false, fmt.Errorf("flush: %w", err)
	}
	if v, err := db.GetBytes(ro, []byte("key099")); err != nil || string(v) != "value99" {
		return false, fmt.Errorf("key099 after the flush: %q, %v", v, err)
	}
	fmt.Println("flushed; key099 read back from the table file")
	db.Close()

	factory, err := memtableFactoryInOptions(dir)
	if err != nil {
		return false, err
	}
	fmt.Println("memtable factory in OPTIONS:", factory)
	if factory != rep {
		fmt.Printf("FAILED: the database ran on %s, not %s (is memrep in the librocksdb linked?)\n", factory, rep)
		return false, nil
	}
	fmt.Println("ok: the database ran on", rep)
	return true, nil
}

func main() {
	dir, err := os.MkdirTemp("", "memrep-go-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "go:", err)
		os.Exit(1)
	}
	ok, err := run(dir)
	os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "go:", err)
	}
	if !ok || err != nil {
		os.Exit(1)
	}
}
