#include <bit>
#include <charconv>
#include <limits>
#include <sstream>

#include "memrep/sorted_hash.h"

namespace memrep {
namespace {

Status OutOfRange(const char* name, uint64_t value, uint64_t lo, uint64_t hi) {
  std::ostringstream msg;
  msg << "sorted hash option " << name << "=" << value << " is out of range; use " << lo
      << ".." << hi;
  return Status::InvalidArgument(msg.str());
}

}  // namespace

Status SortedHashOptions::Validate() const {
  if (bucket_count > kMaxBucketCount) {
    return OutOfRange("bucket_count", bucket_count, 0, kMaxBucketCount);
  }
  if (write_buffer_size != 0 &&
      (write_buffer_size < kMinWriteBufferSize || write_buffer_size > kMaxWriteBufferSize)) {
    return Status::InvalidArgument(
        "sorted hash option write_buffer_size=" + std::to_string(write_buffer_size) +
        " is out of range; use 0 (auto) or " + std::to_string(kMinWriteBufferSize) + ".." +
        std::to_string(kMaxWriteBufferSize));
  }
  if (seal_threshold < 1 || seal_threshold > kMaxThreshold) {
    return OutOfRange("seal_threshold", seal_threshold, 1, kMaxThreshold);
  }
  if (background_cut < 1 || background_cut > kMaxThreshold) {
    return OutOfRange("background_cut", background_cut, 1, kMaxThreshold);
  }
  if (max_runs < 2 || max_runs > kMaxRuns) return OutOfRange("max_runs", max_runs, 2, kMaxRuns);
  return Status::OK();
}

uint64_t SortedHashOptions::EffectiveBucketCount() const {
  uint64_t wanted =
      bucket_count != 0 ? bucket_count : EffectiveWriteBufferSize() / kWriteBufferBytesPerBucket;
  if (wanted < 1024) wanted = 1024;
  if (wanted > kMaxBucketCount) wanted = kMaxBucketCount;
  return std::bit_ceil(wanted);
}

const std::vector<std::string>& SortedHashOptions::Names() {
  static const std::vector<std::string> names = {"bucket_count", "write_buffer_size",
                                                 "seal_threshold", "background_cut", "max_runs"};
  return names;
}

Status SortedHashOptions::Get(const std::string& name, std::string* value) const {
  if (name == "bucket_count") {
    *value = bucket_count == 0 ? "auto" : std::to_string(bucket_count);
  } else if (name == "write_buffer_size") {
    *value = std::to_string(write_buffer_size);
  } else if (name == "seal_threshold") {
    *value = std::to_string(seal_threshold);
  } else if (name == "background_cut") {
    *value = std::to_string(background_cut);
  } else if (name == "max_runs") {
    *value = std::to_string(max_runs);
  } else {
    return Status::InvalidArgument("unknown sorted hash option '" + name + "'");
  }
  return Status::OK();
}

std::string SortedHashOptions::ToString() const {
  std::string out, value;
  for (const std::string& name : Names()) {
    Get(name, &value);
    out += (out.empty() ? "" : ";") + name + "=" + value;
  }
  return out;
}

Status SortedHashOptions::Set(const std::string& name, const std::string& value) {
  if (name == "bucket_count" && value == "auto") {
    bucket_count = 0;
    return Status::OK();
  }
  uint64_t number = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, number);
  if (value.empty() || ec != std::errc() || ptr != end) {
    return Status::InvalidArgument("sorted hash option " + name + "='" + value +
                                   "' is not a non-negative decimal number");
  }
  SortedHashOptions next = *this;
  auto as_u32 = [&](uint32_t* field) {
    *field = number > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                           : static_cast<uint32_t>(number);
  };
  if (name == "bucket_count") {
    if (number == 0) {
      return Status::InvalidArgument(
          "sorted hash option bucket_count=0 is out of range; use 1.." +
          std::to_string(kMaxBucketCount) + ", or 'auto' to size it from write_buffer_size");
    }
    next.bucket_count = number;
  } else if (name == "write_buffer_size") {
    next.write_buffer_size = number;
  } else if (name == "seal_threshold") {
    as_u32(&next.seal_threshold);
  } else if (name == "background_cut") {
    as_u32(&next.background_cut);
  } else if (name == "max_runs") {
    as_u32(&next.max_runs);
  } else {
    return Status::InvalidArgument(
        "unknown sorted hash option '" + name +
        "'; known: bucket_count, write_buffer_size, seal_threshold, background_cut, max_runs");
  }
  Status s = next.Validate();
  if (s.ok()) *this = next;
  return s;
}

}  // namespace memrep
