// OptionTable: the one description of an options struct, from which its
// options are parsed, printed, validated and documented. A rep declares each
// option once, with its type, range and one line of doc, instead of keeping
// hand-written string switches for Set, Get, ToString and Validate in step.
//
//   static const OptionTable table =
//       OptionTable::For<SortedHashOptions>("sorted hash")
//           .Count("max_runs", &SortedHashOptions::max_runs, 2, 64, "Sorted runs kept at most")
//           .Bytes("write_buffer_size", &SortedHashOptions::write_buffer_size, 4096,
//                  uint64_t{16} << 30, "Memtable size the rep is sized for", /*allows_auto=*/true)
//           .Check([](const SortedHashOptions& o) { return ...cross-field rule...; });
//
// The default of each option is what a default-constructed struct holds.
//
// Text forms, as Set takes a value and Get prints it:
//   count   a plain decimal number. With allows_auto, "auto" (any case) or 0
//           means 0, "derive it", and prints as "auto".
//   bytes   a decimal number, optionally followed by K, M, G or T (powers of
//           1024, any case, optionally with B or iB: "64M", "64MiB"); printed
//           as plain decimal bytes; "auto" as for count.
//   bool    true, false, 1 or 0, any case; printed true or false.
//   string  any text without ';', '=', '{', '}' or white space at either end,
//           which would not survive an option string.
//   choice  one of the listed names, exactly.
// An option string is "name=value; name=value"; Parse reads what ToString
// writes back to the same struct.
//
// Checks: Set checks one value against its field's range, so a value Set
// accepts passes Validate's check of that field. Parse checks the whole result
// (every field, then the table's cross-field checks) before it changes
// anything. Validate does the same for a struct filled in by C++ code.
//
// Thread safety: a table is immutable once built; any number of threads may
// use it at once. AnyOptions is a value: const calls may run concurrently,
// any other call needs the object to itself. Copies share memory until one of
// them is written, but behave as independent values.
//
// Cost: finding an option is a linear scan by name (a table holds a handful);
// each access to a member is one std::function call; Parse copies the struct
// once. None of it is on a rep's data path: options are read when a memtable
// is made.
//
// Nothing here throws. Running out of memory gives Status::OutOfMemory (the
// calls that return a string return "" instead). A builder that runs out of
// memory yields a table whose every call returns that status (see status()).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "memrep/status.h"

namespace memrep::registry {

// A name of type T that is the same in every translation unit and shared
// library (the compiler's spelling of the instantiation), with no RTTI.
template <typename T>
inline std::string_view TypeNameOf() noexcept {
  return __PRETTY_FUNCTION__;
}

enum class OptionType { kCount, kBytes, kBool, kString, kChoice };

// One option, as Set, Get, Validate and Markdown see it.
struct OptionField {
  // The member's C++ type.
  enum class Storage { kUint32, kUint64, kBool, kString };

  std::string name;
  OptionType type = OptionType::kCount;
  // kCount, kBytes: the accepted range, inclusive. max never exceeds what the
  // member's type holds.
  uint64_t min = 0;
  uint64_t max = 0;
  bool allows_auto = false;          // kCount, kBytes: 0 also accepted, as "auto"
  std::vector<std::string> choices;  // kChoice: the accepted names
  std::string doc;                   // one line, for Markdown
  Storage storage = Storage::kUint64;
  // The member inside a struct of the table's type: member(&options) is
  // &(options.*pointer_to_member).
  std::function<void*(void*)> member;
};

// A field's type and accepted range as the docs write them ("count",
// "2..64", "1..1073741824 or auto", "a | b"); Markdown and ListReps use them.
const char* TypeName(OptionType type) noexcept;
std::string RangeText(const OptionField& field);

// `text` without the white space (space, tab, CR, LF) around it: how option
// strings and rep names are read everywhere.
std::string_view Trim(std::string_view text);

// Calls fn(item) for each item of an option string ("a=1; b=2"), trimmed,
// skipping empty ones, until fn returns a status that is not OK (returned).
template <typename Fn>
Status ForEachItem(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const size_t end = std::min(text.find(';'), text.size());
    const std::string_view item = Trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (item.empty()) continue;
    Status s = fn(item);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// An item's name and value, trimmed, around its first '='; false if it has none.
inline bool SplitItem(std::string_view item, std::string_view* name, std::string_view* value) {
  const size_t equals = item.find('=');
  if (equals == std::string_view::npos) return false;
  *name = Trim(item.substr(0, equals));
  *value = Trim(item.substr(equals + 1));
  return true;
}

class OptionTable {
 public:
  template <typename Options>
  class Builder;

  // Starts the table of `Options`; `subject` names it in messages ("sorted
  // hash" gives "sorted hash option max_runs=99 is out of range; use 2..64").
  template <typename Options>
  static Builder<Options> For(std::string_view subject) noexcept {
    return Builder<Options>(subject);
  }

  OptionTable(OptionTable&&) noexcept = default;
  OptionTable& operator=(OptionTable&&) noexcept = default;

  // OK, or OutOfMemory if memory ran out while the table was built; then each
  // call below returns this status (or "").
  const Status& status() const noexcept { return status_; }
  const std::string& subject() const noexcept { return subject_; }
  // The options struct the table describes, as TypeNameOf<Options>() names
  // it. (A name rather than std::type_info: memrep builds without RTTI, as
  // RocksDB's release builds do when memrep is compiled into them.)
  std::string_view type() const noexcept { return type_; }
  const std::vector<OptionField>& fields() const noexcept { return fields_; }
  // The field called `name`, or nullptr.
  const OptionField* Find(std::string_view name) const noexcept;

  // In the calls below, `options` points to a struct of type().
  //
  // Parses `value` into the named member. An unknown name, text of the wrong
  // form or a value out of range gives InvalidArgument and changes nothing.
  Status Set(void* options, std::string_view name, std::string_view value) const noexcept;
  // The named member's value, as Set takes it.
  Status Get(const void* options, std::string_view name, std::string* value) const noexcept;
  // Sets each item of "name=value; name=value" (names and values trimmed,
  // empty items skipped), then validates the result. All or nothing: on any
  // error `options` is unchanged.
  Status Parse(void* options, std::string_view text) const noexcept;
  // OK if every field is in range and the table's cross-field checks pass;
  // otherwise InvalidArgument naming the first field or rule that does not.
  Status Validate(const void* options) const noexcept;
  // "a=1;b=auto;c=true", every field in table order.
  std::string ToString(const void* options) const noexcept;
  // The options as a Markdown table: | option | type | default | range | description |
  std::string Markdown() const noexcept;

 private:
  friend class AnyOptions;
  OptionTable() noexcept = default;

  Status Store(const OptionField& field, void* options, std::string_view value) const;
  Status CheckField(const OptionField& field, const void* options) const;
  Status CheckText(const OptionField& field, std::string_view text) const;
  std::string Print(const OptionField& field, const void* options) const;
  Status Unknown(std::string_view name) const;
  Status OutOfRange(const OptionField& field, std::string_view value) const;
  Status Refuse(const OptionField& field, std::string_view value, std::string_view why) const;
  Status SetOrThrow(void* options, std::string_view name, std::string_view value) const;

  std::string subject_;
  std::vector<OptionField> fields_;
  std::vector<std::function<Status(const void*)>> checks_;
  std::string_view type_ = TypeNameOf<void>();
  std::shared_ptr<void> defaults_;  // a default-constructed struct; never written
  // A copy of a struct; throws std::bad_alloc when memory runs out.
  std::shared_ptr<void> (*clone_)(const void* options) = nullptr;
  void (*move_assign_)(void* to, void* from) noexcept = nullptr;
  Status status_;
};

// Declares the options of an `Options` struct, one call per member, in the
// order ToString prints them. Used in one expression that ends in the
// conversion to OptionTable.
// REQUIRES: names are unique; min <= max; the defaults pass the table's checks.
template <typename Options>
class OptionTable::Builder {
  static_assert(std::is_default_constructible_v<Options> && std::is_copy_constructible_v<Options>);
  static_assert(std::is_nothrow_move_assignable_v<Options>, "Parse commits with a move");

 public:
  // A uint32_t or uint64_t member (of Options or of a base of it, such as
  // RunOptions); max is capped at what the member holds.
  template <typename Member, typename Owner>
  Builder&& Count(std::string_view name, Member Owner::*member, uint64_t min, uint64_t max,
                  std::string_view doc, bool allows_auto = false) && noexcept {
    return std::move(*this).Add(OptionType::kCount, name, FieldOf(member), min, CapMax<Member>(max),
                                allows_auto, {}, doc);
  }
  template <typename Member, typename Owner>
  Builder&& Bytes(std::string_view name, Member Owner::*member, uint64_t min, uint64_t max,
                  std::string_view doc, bool allows_auto = false) && noexcept {
    return std::move(*this).Add(OptionType::kBytes, name, FieldOf(member), min, CapMax<Member>(max),
                                allows_auto, {}, doc);
  }
  template <typename Owner>
  Builder&& Bool(std::string_view name, bool Owner::*member, std::string_view doc) && noexcept {
    return std::move(*this).Add(OptionType::kBool, name, FieldOf(member), 0, 1, false, {}, doc);
  }
  Builder&& String(std::string_view name, std::string Options::*member,
                   std::string_view doc) && noexcept {
    return std::move(*this).Add(OptionType::kString, name, member, 0, 0, false, {}, doc);
  }
  Builder&& Choice(std::string_view name, std::string Options::*member,
                   std::initializer_list<std::string_view> choices,
                   std::string_view doc) && noexcept {
    return std::move(*this).Add(OptionType::kChoice, name, member, 0, 0, false, choices, doc);
  }
  // A rule across fields: `check(const Options&)` returns a Status. Run by
  // Validate and Parse, in the order added, once every field is in range.
  template <typename Rule>
  Builder&& Check(Rule check) && noexcept {
    if (!table_.status_.ok()) return std::move(*this);
    try {
      table_.checks_.emplace_back(
          [check](const void* options) { return check(*static_cast<const Options*>(options)); });
    } catch (const std::bad_alloc&) {
      table_.status_ = OutOfMemoryWhileBuilding();
    }
    return std::move(*this);
  }

  operator OptionTable() && noexcept {  // NOLINT: the builder's last step
    assert(!table_.status_.ok() || table_.Validate(table_.defaults_.get()).ok());
    return std::move(table_);
  }

 private:
  friend class OptionTable;

  explicit Builder(std::string_view subject) noexcept {
    table_.type_ = TypeNameOf<Options>();
    table_.clone_ = [](const void* options) -> std::shared_ptr<void> {
      return std::make_shared<Options>(*static_cast<const Options*>(options));
    };
    table_.move_assign_ = [](void* to, void* from) noexcept {
      *static_cast<Options*>(to) = std::move(*static_cast<Options*>(from));
    };
    try {
      table_.subject_ = subject;
      table_.defaults_ = std::make_shared<Options>();
    } catch (const std::bad_alloc&) {
      table_.status_ = OutOfMemoryWhileBuilding();
    }
  }

  // A member of Options or of a public base of it, as a member of Options.
  template <typename Member, typename Owner>
  static Member Options::*FieldOf(Member Owner::*member) noexcept {
    static_assert(std::is_base_of_v<Owner, Options>, "a member of the options struct");
    return member;
  }

  template <typename Member>
  static uint64_t CapMax(uint64_t max) noexcept {
    static_assert(std::is_same_v<Member, uint32_t> || std::is_same_v<Member, uint64_t>,
                  "a count or size is a uint32_t or uint64_t member");
    return std::min<uint64_t>(max, std::numeric_limits<Member>::max());
  }

  template <typename Member>
  static OptionField::Storage StorageOf() noexcept {
    if constexpr (std::is_same_v<Member, uint32_t>) return OptionField::Storage::kUint32;
    if constexpr (std::is_same_v<Member, uint64_t>) return OptionField::Storage::kUint64;
    if constexpr (std::is_same_v<Member, bool>) return OptionField::Storage::kBool;
    if constexpr (std::is_same_v<Member, std::string>) return OptionField::Storage::kString;
  }

  static Status OutOfMemoryWhileBuilding() noexcept {
    return Status::OutOfMemory("out of memory while building an option table");
  }

  template <typename Member>
  Builder&& Add(OptionType type, std::string_view name, Member Options::*member, uint64_t min,
                uint64_t max, bool allows_auto, std::initializer_list<std::string_view> choices,
                std::string_view doc) && noexcept {
    assert(min <= max && table_.Find(name) == nullptr);
    if (!table_.status_.ok()) return std::move(*this);
    try {
      OptionField field;
      field.name = name;
      field.type = type;
      field.min = min;
      field.max = max;
      field.allows_auto = allows_auto;
      field.choices.assign(choices.begin(), choices.end());
      field.doc = doc;
      field.storage = StorageOf<Member>();
      field.member = [member](void* options) -> void* {
        return &(static_cast<Options*>(options)->*member);
      };
      table_.fields_.push_back(std::move(field));
    } catch (const std::bad_alloc&) {
      table_.status_ = OutOfMemoryWhileBuilding();
    }
    return std::move(*this);
  }

  OptionTable table_;
};

// An options struct of the type a table describes, held without its type.
// A value: copying is cheap and never fails (the copies share the struct until
// one is written, which then copies it), and a copy changes independently.
class AnyOptions {
 public:
  AnyOptions() noexcept = default;  // empty: no table; each call fails
  // The table's defaults. REQUIRES: `table` outlives this and its copies.
  explicit AnyOptions(const OptionTable* table) noexcept
      : table_(table), options_(table->defaults_) {}

  const OptionTable* table() const noexcept { return table_; }

  // REQUIRES: the table describes T and was built (table()->status().ok()).
  // The reference is valid until this object is written or destroyed.
  template <typename T>
  const T& As() const noexcept {
    assert(table_ != nullptr && table_->type() == TypeNameOf<T>() && options_ != nullptr);
    return *static_cast<const T*>(options_.get());
  }
  // The struct, to be written; nullptr if memory ran out. REQUIRES: as for
  // As(). The pointer is valid until this object is copied, written through
  // another call, or destroyed.
  template <typename T>
  T* Mutable() noexcept {
    assert(table_ != nullptr && table_->type() == TypeNameOf<T>());
    return Unshare().ok() ? static_cast<T*>(options_.get()) : nullptr;
  }

  // As OptionTable's calls of the same names, on the held struct.
  Status Set(std::string_view name, std::string_view value) noexcept;
  Status Get(std::string_view name, std::string* value) const noexcept;
  Status Parse(std::string_view text) noexcept;
  Status Validate() const noexcept;
  std::string ToString() const noexcept;

 private:
  // Makes options_ this object's own, copying it if it is shared.
  Status Unshare() noexcept;
  static Status Empty() noexcept;

  const OptionTable* table_ = nullptr;
  std::shared_ptr<void> options_;  // null only when empty or the table was not built
};

}  // namespace memrep::registry
