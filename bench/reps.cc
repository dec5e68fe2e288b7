#include "reps.h"

#include <algorithm>
#include <chrono>

#include "memrep_rocksdb.h"
#include "memtable_rep_adapter.h"

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "name=value; name=value" onto `options`, through memrep's own checks.
Status ApplySortedHashOptions(std::string_view text, SortedHashOptions* options) {
  while (!text.empty()) {
    const size_t end = std::min(text.find(';'), text.size());
    const std::string_view item = Trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument("--sorted_hash_options: '" + std::string(item) +
                                     "' is not name=value");
    }
    Status s = options->Set(std::string(Trim(item.substr(0, eq))),
                            std::string(Trim(item.substr(eq + 1))));
    if (!s.ok()) return Status::InvalidArgument("--sorted_hash_options: " + s.message());
  }
  Status s = options->Validate();
  if (!s.ok()) return Status::InvalidArgument("--sorted_hash_options: " + s.message());
  return Status::OK();
}

}  // namespace

const std::vector<std::string>& KnownReps() {
  static const std::vector<std::string> reps = {"skip_list", "vector", "hash_skiplist",
                                                "hash_linkedlist", "sorted_hash"};
  return reps;
}

std::string CanonicalRepName(std::string_view word) {
  struct Alias {
    std::string_view word, name;
  };
  static constexpr Alias kAliases[] = {
      {"skiplist", "skip_list"},          {"SkipListFactory", "skip_list"},
      {"VectorRepFactory", "vector"},     {"prefix_hash", "hash_skiplist"},
      {"hashskiplist", "hash_skiplist"},  {"HashSkipListRepFactory", "hash_skiplist"},
      {"hashlinklist", "hash_linkedlist"}, {"HashLinkListRepFactory", "hash_linkedlist"},
      {"memrep.SortedHash", "sorted_hash"},
  };
  for (const std::string& name : KnownReps()) {
    if (word == name) return name;
  }
  for (const Alias& alias : kAliases) {
    if (word == alias.word) return std::string(alias.name);
  }
  return "";
}

Status RepFactory::Make(const std::string& name, const RepConfig& config,
                        uint64_t expected_arena_bytes, std::unique_ptr<RepFactory>* out) {
  std::unique_ptr<RepFactory> f(new RepFactory());
  f->name_ = name;
  f->arena_block_size_ = config.arena_block_size;
  if (name == "skip_list") {
    f->factory_ = std::make_unique<rdb::SkipListFactory>();
    f->description_ = "rocksdb::SkipListFactory";
  } else if (name == "vector") {
    f->factory_ = std::make_unique<rdb::VectorRepFactory>();
    f->description_ = "rocksdb::VectorRepFactory";
  } else if (name == "hash_skiplist" || name == "hash_linkedlist") {
    if (name == "hash_skiplist") {
      f->factory_.reset(rdb::NewHashSkipListRepFactory(config.bucket_count));
    } else {
      // No bucket-distribution logging: the bench passes no logger.
      f->factory_.reset(rdb::NewHashLinkListRepFactory(config.bucket_count, 0, 4096, false));
    }
    f->prefix_extractor_.reset(rdb::NewFixedPrefixTransform(config.prefix_length));
    f->description_ = std::string(f->factory_->Name()) +
                      ", bucket_count=" + std::to_string(config.bucket_count) +
                      ", fixed prefix " + std::to_string(config.prefix_length);
  } else if (name == "sorted_hash") {
    SortedHashOptions options;
    options.write_buffer_size =
        config.write_buffer_size != 0
            ? config.write_buffer_size
            : std::clamp<uint64_t>(expected_arena_bytes, SortedHashOptions::kMinWriteBufferSize,
                                   SortedHashOptions::kMaxWriteBufferSize);
    Status s = ApplySortedHashOptions(config.sorted_hash_options, &options);
    if (!s.ok()) return s;
    f->factory_ = rocksdb_plugin::NewSortedHashRepFactory(options);
    f->description_ = "memrep.SortedHash " + options.ToString();
  } else {
    return Status::InvalidArgument("unknown rep '" + name + "'");
  }
  *out = std::move(f);
  return Status::OK();
}

Status RepFactory::NewRep(std::unique_ptr<BenchRep>* out) const {
  std::unique_ptr<BenchRep> rep(new BenchRep());
  rep->order_ = order_;
  rep->prefix_extractor_ = prefix_extractor_;
  const Clock::time_point start = Clock::now();
  rep->arena_ = std::make_unique<ShimArena>(arena_block_size_);
  rep->rep_.reset(factory_->CreateMemTableRep(*order_, rep->arena_.get(), prefix_extractor_.get(),
                                              /*logger=*/nullptr, /*column_family_id=*/0));
  rep->create_micros_ = MicrosSince(start);
  if (rep->rep_ == nullptr) return Status::InvalidArgument(name_ + ": the factory made no rep");
  // The sorted hash factory falls back to a skip list when it finds the key
  // order is not bytewise: measuring that under this name would be a lie.
  if (name_ == "sorted_hash" &&
      dynamic_cast<rocksdb_plugin::MemTableRepAdapter*>(rep->rep_.get()) == nullptr) {
    return Status::InvalidArgument(
        "sorted_hash: the factory built another rep (it found the key order not bytewise)");
  }
  *out = std::move(rep);
  return Status::OK();
}

double BenchRep::Destroy() {
  if (rep_ == nullptr && arena_ == nullptr) return 0;
  const Clock::time_point start = Clock::now();
  rep_.reset();
  arena_.reset();
  return MicrosSince(start);
}

}  // namespace memrep::bench
