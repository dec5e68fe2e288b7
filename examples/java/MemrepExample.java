// memrep from Java, through RocksJava (org.rocksdb:rocksdbjni 11.8.1 from
// Maven): a database whose memtables are memrep.Vector, chosen by properties,
// written, read and scanned; then the OPTIONS file RocksDB wrote says which
// memtable it really had.
//
//   java -cp rocksdbjni-11.8.1.jar:. -Djava.library.path=<dir> MemrepExample [PLUGIN]
//
// librocksdbjni carries RocksDB compiled in, so memrep comes as a plugin built
// against it: libmemrep_rocksdb.so, compiled against RocksDB 11.8.1's headers
// without RTTI (as librocksdbjni is) and linked to librocksdbjni-linux64.so
// itself, so that its references resolve to the RocksDB already loaded. <dir>
// holds that librocksdbjni-linux64.so (out of the jar), and RocksJava loads
// it from there rather than a copy of its own in /tmp; then System.load of
// PLUGIN registers every rep. Without PLUGIN the same program runs on the skip
// list (RocksDB ignores a memtable factory no library registered): it then
// says so and exits 1.
//
// Exit status: 0 the database ran on memrep.Vector and every check passed; 1
// a check failed (the fallback among them); 2 bad arguments.
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

public final class MemrepExample {
  private static final String REP = "memrep.Vector";

  /** The memtable factory named in the newest OPTIONS-number file of dir. */
  static String memtableFactoryInOptions(Path dir) throws IOException {
    Path newest = null;
    long newestNumber = -1;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "OPTIONS-*")) {
      for (Path file : files) {
        try {
          long n = Long.parseLong(file.getFileName().toString().substring("OPTIONS-".length()));
          if (n >= newestNumber) {
            newest = file;
            newestNumber = n;
          }
        } catch (NumberFormatException e) {
          // OPTIONS-000005.dbtmp and the like
        }
      }
    }
    if (newest == null) throw new IOException("no OPTIONS file in " + dir);
    // "  memtable_factory={id=memrep.Vector;...}" or "  memtable_factory=SkipListFactory"
    for (String line : Files.readAllLines(newest)) {
      String t = line.trim();
      if (!t.startsWith("memtable_factory=")) continue;
      t = t.substring("memtable_factory=".length());
      if (t.startsWith("{id=")) t = t.substring(4);
      return t.split("[;}]")[0];
    }
    throw new IOException("no memtable_factory in " + newest);
  }

  static boolean run(Path dir) throws RocksDBException, IOException {
    Properties props = new Properties();
    props.setProperty("write_buffer_size", "4194304");
    props.setProperty("memtable_factory", "{id=" + REP + "}");
    try (ConfigOptions config = new ConfigOptions();
        ColumnFamilyOptions cf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props);
        DBOptions db_options = new DBOptions().setCreateIfMissing(true)) {
      if (cf == null) throw new RocksDBException("the properties " + props + " were refused");
      System.out.println("properties: " + props);
      System.out.println("memtable factory in the options: " + cf.memTableFactoryName());
      try (Options options = new Options(db_options, cf);
          RocksDB db = RocksDB.open(options, dir.toString())) {
        for (int i = 0; i < 100; ++i) {
          db.put(String.format("key%03d", i).getBytes(), ("value" + i).getBytes());
        }
        db.delete("key050".getBytes());
        byte[] v = db.get("key042".getBytes());
        if (v == null || !new String(v).equals("value42")) throw new RocksDBException("key042: wrong value");
        System.out.println("key042 = " + new String(v));
        if (db.get("key050".getBytes()) != null) throw new RocksDBException("key050 was deleted but is found");
        System.out.println("key050: not found (deleted)");

        // A scan from key048: key048, key049, key051, ... key099, in order.
        List<String> keys = new ArrayList<>();
        try (RocksIterator it = db.newIterator()) {
          for (it.seek("key048".getBytes()); it.isValid(); it.next()) {
            String key = new String(it.key());
            if ((!keys.isEmpty() && key.compareTo(keys.get(keys.size() - 1)) <= 0) || key.equals("key050")) {
              throw new RocksDBException("scan: " + key + " out of order or deleted");
            }
            keys.add(key);
          }
          it.status();
        }
        if (keys.size() != 51) throw new RocksDBException("scan from key048: " + keys.size() + " keys, not 51");
        System.out.println("scan from key048: " + keys.size() + " keys, last " + keys.get(keys.size() - 1));
        // A flush reads the whole memtable out in order, into a table file.
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
          db.flush(flush);
        }
        v = db.get("key099".getBytes());
        if (v == null || !new String(v).equals("value99")) throw new RocksDBException("key099: wrong value after the flush");
        System.out.println("flushed; key099 read back from the table file");
      }
    }
    String factory = memtableFactoryInOptions(dir);
    System.out.println("memtable factory in OPTIONS: " + factory);
    if (!factory.equals(REP)) {
      System.out.println("FAILED: the database ran on " + factory + ", not " + REP + " (was the plugin loaded?)");
      return false;
    }
    System.out.println("ok: the database ran on " + REP);
    return true;
  }

  public static void main(String[] args) throws IOException {
    if (args.length > 1) {
      System.err.println("usage: MemrepExample [path/to/libmemrep_rocksdb.so]");
      System.exit(2);
    }
    RocksDB.loadLibrary();
    if (args.length == 1) System.load(Path.of(args[0]).toAbsolutePath().toString());
    Path dir = Files.createTempDirectory("memrep-java-");
    boolean ok = false;
    try {
      ok = run(dir);
    } catch (RocksDBException | IOException e) {
      System.err.println("java: " + e.getMessage());
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.exit(ok ? 0 : 1);
  }
}
