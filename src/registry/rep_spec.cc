// The public face of the registry: ListReps, DescribeRep and RepSpec.
#include <new>
#include <string>

#include "format/key_order.h"
#include "memrep/registry.h"
#include "registry/registry.h"

namespace memrep {

struct RepSpec::Impl {
  const registry::Registration* rep;
  registry::AnyOptions options;
  RepTraits traits;  // rep->traits, or what rep->traits_of says of these options

  void RefreshTraits() {
    traits = rep->traits_of != nullptr ? rep->traits_of(options) : rep->traits;
  }
  // Runs the registration's own rules, and refreshes the traits.
  Status Refresh() {
    if (rep->check_options != nullptr) {
      Status s = rep->check_options(options);
      if (!s.ok()) return s;
    }
    RefreshTraits();
    return Status::OK();
  }
};

// The registry's own access to what RepSpec keeps private.
struct RepSpecAccess {
  using Impl = RepSpec::Impl;
  static const Impl& Of(const RepSpec& spec) { return *spec.impl_; }
};

using registry::ForEachItem;
using registry::SplitItem;
using registry::Trim;

namespace {

RepInfo InfoOf(const registry::Registration& r) {
  RepInfo info;
  info.name = r.name;
  info.aliases = r.aliases;
  info.summary = r.summary;
  info.positional_option = r.positional_option;
  info.chooses_per_memtable = r.describe_decision != nullptr;
  const registry::AnyOptions defaults(r.options);
  info.traits = r.traits_of != nullptr ? r.traits_of(defaults) : r.traits;
  for (const registry::OptionField& field : r.options->fields()) {
    OptionInfo option;
    option.name = field.name;
    option.type = registry::TypeName(field.type);
    (void)defaults.Get(field.name, &option.default_value);
    option.range = registry::RangeText(field);
    option.doc = field.doc;
    info.options.push_back(std::move(option));
  }
  return info;
}

Status UnknownRep(std::string_view name) {
  return Status::InvalidArgument("unknown memtable rep '" + std::string(name) +
                                 "'; known: " + registry::KnownNames());
}

// Finds the rep `name` names ("<name>" or "<name>:<positional value>") and
// starts *impl at its defaults, with the positional option set.
Status StartSpec(std::string_view name, RepSpecAccess::Impl* impl) {
  std::string_view positional;
  const size_t colon = name.find(':');
  if (colon != std::string_view::npos) {
    positional = Trim(name.substr(colon + 1));
    name = Trim(name.substr(0, colon));
  }
  const registry::Registration* rep = registry::Find(name);
  if (rep == nullptr) return UnknownRep(name);
  impl->rep = rep;
  impl->options = registry::AnyOptions(rep->options);
  if (colon == std::string_view::npos) return Status::OK();
  if (rep->positional_option.empty()) {
    return Status::InvalidArgument("memtable rep '" + rep->name + "' takes no '" +
                                   std::string(name) + ":<value>' form; use id=" + rep->name +
                                   "; <option>=<value>");
  }
  return impl->options.Set(rep->positional_option, positional);
}

// Parses `text` into *impl (see registry.h for the forms).
Status ParseSpec(std::string_view text, RepSpecAccess::Impl* impl) {
  text = Trim(text);
  if (text.find('=') == std::string_view::npos) {
    Status s = StartSpec(text, impl);
    return s.ok() ? impl->options.Validate() : s;
  }
  // "id=<name>; option=value; ...": the id item names the rep (as RocksDB
  // reads it, "<name>:<value>" there too); the rest are its options.
  std::string_view name;
  std::string rest;
  (void)ForEachItem(text, [&](std::string_view item) {
    std::string_view key, value;
    if (SplitItem(item, &key, &value) && key == "id") {
      name = value;
    } else {
      rest += std::string(item) + ";";
    }
    return Status::OK();
  });
  if (name.empty()) {
    return Status::InvalidArgument(
        "options string '" + std::string(text) +
        "' names no rep: begin it with id=<rep name>; known reps: " + registry::KnownNames());
  }
  Status s = StartSpec(name, impl);
  return s.ok() ? impl->options.Parse(rest) : s;
}

}  // namespace

const char* CostName(RepTraits::Cost cost) {
  switch (cost) {
    case RepTraits::Cost::kConstant:
      return "constant";
    case RepTraits::Cost::kLogarithmic:
      return "logarithmic";
    case RepTraits::Cost::kLinear:
      return "linear";
  }
  return "?";
}

const char* ComparatorsName(RepTraits::Comparators comparators) {
  switch (comparators) {
    case RepTraits::Comparators::kAny:
      return "any";
    case RepTraits::Comparators::kByteEquality:
      return "byte_equality";
    case RepTraits::Comparators::kBytewise:
      return "bytewise";
  }
  return "?";
}

const char* DuplicatesName(RepTraits::Duplicates duplicates) {
  switch (duplicates) {
    case RepTraits::Duplicates::kNone:
      return "none";
    case RepTraits::Duplicates::kSameThread:
      return "same_thread";
    case RepTraits::Duplicates::kAll:
      return "all";
  }
  return "?";
}

std::vector<RepInfo> ListReps() {
  std::vector<RepInfo> reps;
  for (const registry::Registration* r : registry::All()) reps.push_back(InfoOf(*r));
  return reps;
}

Status DescribeRep(std::string_view name, RepInfo* out) {
  const registry::Registration* r = registry::Find(name);
  if (r == nullptr) return Status::NotFound(UnknownRep(name).message());
  try {
    *out = InfoOf(*r);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not describe a rep");
  }
  return Status::OK();
}

Status RepSpec::Parse(std::string_view text, RepSpec* out) {
  try {
    auto impl = std::make_unique<Impl>();
    Status s = ParseSpec(text, impl.get());
    if (s.ok()) s = impl->Refresh();
    if (!s.ok()) return s;
    out->impl_ = std::move(impl);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not parse a rep's options string");
  }
  return Status::OK();
}

RepSpec::RepSpec()
    : impl_(std::make_unique<Impl>(
          Impl{registry::BuiltinReps().front(),
               registry::AnyOptions(registry::BuiltinReps().front()->options),
               registry::BuiltinReps().front()->traits})) {}
RepSpec::RepSpec(const RepSpec& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
RepSpec& RepSpec::operator=(const RepSpec& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
RepSpec::RepSpec(RepSpec&&) noexcept = default;
RepSpec& RepSpec::operator=(RepSpec&&) noexcept = default;
RepSpec::~RepSpec() = default;

const std::string& RepSpec::name() const { return impl_->rep->name; }
const RepTraits& RepSpec::traits() const { return impl_->traits; }

std::string RepSpec::Nickname() const {
  return impl_->rep->aliases.empty() ? std::string() : impl_->rep->aliases.front();
}

Status RepSpec::Validate() const {
  Status s = impl_->options.Validate();
  if (s.ok() && impl_->rep->check_options != nullptr) s = impl_->rep->check_options(impl_->options);
  return s;
}

Status RepSpec::Set(std::string_view option, std::string_view value) {
  // One field at a time, as the table checks it; the rules across fields
  // (the table's and the registration's) are Validate's, once all are set.
  Status s = impl_->options.Set(option, value);
  if (s.ok()) impl_->RefreshTraits();
  return s;
}

Status RepSpec::Get(std::string_view option, std::string* value) const {
  return impl_->options.Get(option, value);
}

std::vector<std::string> RepSpec::OptionNames() const {
  std::vector<std::string> names;
  for (const registry::OptionField& f : impl_->rep->options->fields()) names.push_back(f.name);
  return names;
}

std::string RepSpec::ToString() const {
  const std::string options = impl_->options.ToString();
  return "id=" + impl_->rep->name + (options.empty() ? "" : ";" + options);
}

Status RepSpec::CheckWriteBufferSize(uint64_t write_buffer_size) const {
  const uint64_t limit = traits().max_memtable_bytes;
  if (limit != 0 && write_buffer_size > limit) {
    return Status::InvalidArgument(
        name() + " takes a write_buffer_size of at most " + std::to_string(limit) +
        " bytes (it addresses its entries with 32-bit references), not " +
        std::to_string(write_buffer_size));
  }
  const registry::Registration& r = *impl_->rep;
  if (r.check_write_buffer_size == nullptr) return Status::OK();
  return r.check_write_buffer_size(impl_->options, write_buffer_size);
}

Status RepSpec::CheckRowsFace() const {
  const registry::Registration& r = *impl_->rep;
  return r.check_rows_face == nullptr ? Status::OK() : r.check_rows_face(impl_->options);
}

Status RepSpec::CheckComparator(const UserKeyComparator* comparator) const {
  const format::KeyOrder order(comparator);
  if (order.kind() != format::KeyOrder::Kind::kCustom) return Status::OK();
  switch (traits().comparators) {
    case RepTraits::Comparators::kAny:
      return Status::OK();
    case RepTraits::Comparators::kByteEquality:
      // A hash index also needs keys to compare equal only when their bytes
      // are equal, which the comparator says (UserKeyComparator).
      if (comparator->EqualOnlyWhenBytesEqual()) return Status::OK();
      return Status::InvalidArgument(
          name() +
          " finds keys by a hash of their bytes, so it serves comparators under which "
          "only byte-equal keys are equal, and " +
          comparator->Name() +
          " says keys of other bytes may be equal (or carry a timestamp); use a rep whose "
          "traits allow any comparator");
    case RepTraits::Comparators::kBytewise:
      return Status::InvalidArgument(
          name() +
          " orders keys by their bytes, so it serves only memrep::BytewiseComparator() "
          "and ReverseBytewiseComparator(), not " +
          comparator->Name() + "; use a rep whose traits allow any comparator");
  }
  return Status::OK();
}

Status RepSpec::NewRep(const RepContext& context, std::unique_ptr<Rep>* out) const {
  Status s = CheckComparator(context.comparator);
  if (!s.ok()) return s;
  if (context.allocator == nullptr) {
    return Status::InvalidArgument("RepContext::allocator is required");
  }
  try {
    return impl_->rep->make(impl_->options, context, out);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a " + name() + " rep");
  }
}

namespace registry {

std::string DescribeNewestDecision(const RepSpec& spec, const RepLineage& lineage) {
  const Registration& r = *RepSpecAccess::Of(spec).rep;
  return r.describe_decision == nullptr ? std::string() : r.describe_decision(lineage);
}

}  // namespace registry

}  // namespace memrep
