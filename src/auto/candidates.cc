#include "auto/candidates.h"

#include <algorithm>
#include <utility>

#include "auto/cost_book.h"
#include "memrep/auto.h"
#include "memrep/registry.h"
#include "registry/registry.h"

namespace memrep::auto_rep {

std::vector<std::string> SplitCandidates(std::string_view list) {
  std::vector<std::string> names;
  while (true) {
    const size_t comma = list.find(',');
    names.emplace_back(registry::Trim(list.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

std::string CanonicalName(std::string_view name) {
  const registry::Registration* r = registry::Find(name);
  return r == nullptr ? std::string() : r->name;
}

namespace {

// Each candidate, with its defaults, must take this write buffer and serve
// the rows face: the choice may fall on any of them.
template <typename Check>
Status CheckCandidates(const registry::AnyOptions& any, const char* what, Check check) {
  const AutoOptions& o = any.As<AutoOptions>();
  for (const std::string& name : SplitCandidates(o.candidates)) {
    RepSpec spec;
    Status s = RepSpec::Parse(name, &spec);
    if (s.ok()) s = check(spec);
    if (!s.ok()) {
      return Status::FromCode(s.code(), "memrep.Auto candidate " + name + " " + what + ": " +
                                            s.message() + "; remove it from candidates");
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckOptions(const registry::AnyOptions& any) {
  const AutoOptions& o = any.As<AutoOptions>();
  std::vector<std::string> canonical;
  for (const std::string& name : SplitCandidates(o.candidates)) {
    if (name.empty()) {
      return Status::InvalidArgument("memrep.Auto option candidates='" + o.candidates +
                                     "' has an empty name; give a comma list of rep names");
    }
    const std::string c = CanonicalName(name);
    if (c.empty()) {
      return Status::InvalidArgument("memrep.Auto candidate '" + name +
                                     "' is not a registered rep; known: " + registry::KnownNames());
    }
    if (c == AutoOptions::kName) {
      return Status::InvalidArgument(
          "memrep.Auto cannot be its own candidate; list the reps it chooses among");
    }
    if (std::find(canonical.begin(), canonical.end(), c) != canonical.end()) {
      return Status::InvalidArgument("memrep.Auto candidate '" + name + "' (" + c +
                                     ") is listed twice in candidates");
    }
    canonical.push_back(c);
  }
  std::vector<RepCosts> prior;
  if (Status s = ParsePrior(o.prior, &prior); !s.ok()) return s;
  for (const auto& [option, value] : {std::pair{"pin", &o.pin}, std::pair{"start", &o.start}}) {
    if (value->empty()) continue;
    const std::string c = CanonicalName(*value);
    if (std::find(canonical.begin(), canonical.end(), c) == canonical.end() || c.empty()) {
      return Status::InvalidArgument(std::string("memrep.Auto option ") + option + "=" + *value +
                                     " is not one of the candidates (" + o.candidates +
                                     "); name a candidate, or leave it empty");
    }
  }
  return Status::OK();
}

// The traits every candidate offers: what RocksDB may rely on whichever rep
// a memtable gets. Comparators: the widest, since candidates that cannot
// serve a memtable's comparator are left out of its choice.
RepTraits TraitsOf(const registry::AnyOptions& any) {
  const AutoOptions& o = any.As<AutoOptions>();
  RepTraits t;
  t.concurrent_insert = true;
  t.duplicates = RepTraits::Duplicates::kAll;
  t.comparators = RepTraits::Comparators::kBytewise;
  t.point_read_while_mutable = RepTraits::Cost::kConstant;
  t.new_iterator_while_mutable = RepTraits::Cost::kConstant;
  bool any_candidate = false;
  for (const std::string& name : SplitCandidates(o.candidates)) {
    const registry::Registration* r = registry::Find(name);
    if (r == nullptr || r->traits_of != nullptr) continue;
    const RepTraits& c = r->traits;
    any_candidate = true;
    t.concurrent_insert = t.concurrent_insert && c.concurrent_insert;
    t.duplicates = std::min(t.duplicates, c.duplicates);
    t.comparators = std::min(t.comparators, c.comparators);
    t.point_read_while_mutable = std::max(t.point_read_while_mutable, c.point_read_while_mutable);
    t.new_iterator_while_mutable =
        std::max(t.new_iterator_while_mutable, c.new_iterator_while_mutable);
    t.file_backed = t.file_backed || c.file_backed;
  }
  // max_memtable_bytes stays 0: CheckWriteBufferSize asks each candidate,
  // and names the one that does not fit.
  return any_candidate ? t : RepTraits{};
}

Status CheckRowsFace(const registry::AnyOptions& any) {
  return CheckCandidates(any, "cannot serve RocksDB",
                         [](const RepSpec& spec) { return spec.CheckRowsFace(); });
}

Status CheckWriteBufferSize(const registry::AnyOptions& any, uint64_t write_buffer_size) {
  return CheckCandidates(any, "does not fit this write buffer", [&](const RepSpec& spec) {
    return spec.CheckWriteBufferSize(write_buffer_size);
  });
}

}  // namespace memrep::auto_rep
