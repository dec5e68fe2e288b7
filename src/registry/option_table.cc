#include "registry/option_table.h"

#include <atomic>
#include <cctype>
#include <charconv>

namespace memrep::registry {
namespace {

using Storage = OptionField::Storage;

constexpr std::string_view kSpaces = " \t\r\n";
constexpr std::string_view kNotCount = "is not a non-negative decimal number";
constexpr std::string_view kNotBytes =
    "is not a size in bytes (a decimal number, optionally followed by K, M, G or T)";
constexpr std::string_view kNotStorable =
    "cannot be stored: ';', '=', '{', '}' and white space at either end do not survive an "
    "option string";

template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) out += Cat(out.empty() ? "" : separator, item);
  return out;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

enum class Parsed { kOk, kMalformed, kOverflow };

// Digits only: no sign, no white space.
Parsed ParseDecimal(std::string_view text, uint64_t* value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, *value);
  if (text.empty() || stop != end) return Parsed::kMalformed;
  if (error == std::errc::result_out_of_range) return Parsed::kOverflow;
  return error == std::errc() ? Parsed::kOk : Parsed::kMalformed;
}

// A decimal number, then "", "B", or K, M, G or T followed by "", "B" or "iB", in any case.
Parsed ParseBytes(std::string_view text, uint64_t* value) {
  const size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
  std::string_view suffix = text.substr(digits);
  int shift = 0;
  if (!suffix.empty() && !EqualsIgnoringCase(suffix, "b")) {
    const size_t unit = std::string_view("kmgt").find(
        static_cast<char>(std::tolower(static_cast<unsigned char>(suffix[0]))));
    suffix.remove_prefix(1);
    if (unit == std::string_view::npos ||
        !(suffix.empty() || EqualsIgnoringCase(suffix, "b") || EqualsIgnoringCase(suffix, "ib"))) {
      return Parsed::kMalformed;
    }
    shift = 10 * static_cast<int>(unit + 1);
  }
  const Parsed parsed = ParseDecimal(text.substr(0, digits), value);
  if (parsed != Parsed::kOk) return parsed;
  if (*value > (std::numeric_limits<uint64_t>::max() >> shift)) return Parsed::kOverflow;
  *value <<= shift;
  return Parsed::kOk;
}

bool Storable(std::string_view text) {
  return text.find_first_of(";={}") == std::string_view::npos && Trim(text).size() == text.size();
}

bool InRange(const OptionField& field, uint64_t value) {
  return (field.allows_auto && value == 0) || (value >= field.min && value <= field.max);
}

// The member computes an address and does not write; the const_cast keeps one accessor per field.
const void* MemberOf(const OptionField& field, const void* options) {
  return field.member(const_cast<void*>(options));
}

uint64_t ReadNumber(const OptionField& field, const void* member) {
  return field.storage == Storage::kUint32 ? *static_cast<const uint32_t*>(member)
                                           : *static_cast<const uint64_t*>(member);
}

// A Markdown table cell: '|' would end the cell.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string_view("\\|") : std::string_view(&c, 1);
  return out;
}

template <typename Call>
Status Guarded(const Call& call) noexcept {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("out of memory while reading or writing options");
  }
}

}  // namespace

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(kSpaces);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpaces) - begin + 1);
}

const OptionField* OptionTable::Find(std::string_view name) const noexcept {
  for (const OptionField& field : fields_) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

Status OptionTable::Unknown(std::string_view name) const {
  std::vector<std::string> names;
  for (const OptionField& field : fields_) names.push_back(field.name);
  return Status::InvalidArgument(
      Cat("unknown ", subject_, " option '", name, "'; known: ", Join(names, ", ")));
}

Status OptionTable::OutOfRange(const OptionField& field, std::string_view value) const {
  return Status::InvalidArgument(Cat(subject_, " option ", field.name, "=", value,
                                     " is out of range; use ", std::to_string(field.min), "..",
                                     std::to_string(field.max),
                                     field.allows_auto ? ", or 'auto'" : ""));
}

Status OptionTable::Refuse(const OptionField& field, std::string_view value,
                           std::string_view why) const {
  return Status::InvalidArgument(Cat(subject_, " option ", field.name, "='", value, "' ", why));
}

// The check of a kString or kChoice value, shared by Set and Validate.
Status OptionTable::CheckText(const OptionField& field, std::string_view text) const {
  if (field.type == OptionType::kString && !Storable(text)) {
    return Refuse(field, text, kNotStorable);
  }
  if (field.type == OptionType::kChoice &&
      std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end()) {
    return Refuse(field, text, Cat("is not one of: ", Join(field.choices, ", ")));
  }
  return Status::OK();
}

Status OptionTable::Store(const OptionField& field, void* options, std::string_view value) const {
  void* member = field.member(options);
  switch (field.type) {
    case OptionType::kCount:
    case OptionType::kBytes: {
      uint64_t number = 0;
      if (!(field.allows_auto && EqualsIgnoringCase(value, "auto"))) {
        const bool count = field.type == OptionType::kCount;
        const Parsed parsed = count ? ParseDecimal(value, &number) : ParseBytes(value, &number);
        if (parsed == Parsed::kMalformed) {
          return Refuse(field, value, count ? kNotCount : kNotBytes);
        }
        if (parsed == Parsed::kOverflow || !InRange(field, number)) return OutOfRange(field, value);
      }
      if (field.storage == Storage::kUint32) {
        *static_cast<uint32_t*>(member) = static_cast<uint32_t>(number);  // max fits: see CapMax
      } else {
        *static_cast<uint64_t*>(member) = number;
      }
      return Status::OK();
    }
    case OptionType::kBool: {
      const bool yes = EqualsIgnoringCase(value, "true") || value == "1";
      if (!yes && !EqualsIgnoringCase(value, "false") && value != "0") {
        return Refuse(field, value, "is not a boolean: use true, false, 1 or 0");
      }
      *static_cast<bool*>(member) = yes;
      return Status::OK();
    }
    case OptionType::kString:
    case OptionType::kChoice: {
      Status s = CheckText(field, value);
      if (s.ok()) static_cast<std::string*>(member)->assign(value);  // strong guarantee
      return s;
    }
  }
  return Status::OK();
}

std::string OptionTable::Print(const OptionField& field, const void* options) const {
  const void* member = MemberOf(field, options);
  switch (field.storage) {
    case Storage::kBool:
      return *static_cast<const bool*>(member) ? "true" : "false";
    case Storage::kString:
      return *static_cast<const std::string*>(member);
    case Storage::kUint32:
    case Storage::kUint64:
      break;
  }
  const uint64_t number = ReadNumber(field, member);
  return field.allows_auto && number == 0 ? "auto" : std::to_string(number);
}

Status OptionTable::CheckField(const OptionField& field, const void* options) const {
  const void* member = MemberOf(field, options);
  switch (field.type) {
    case OptionType::kCount:
    case OptionType::kBytes: {
      const uint64_t number = ReadNumber(field, member);
      return InRange(field, number) ? Status::OK() : OutOfRange(field, std::to_string(number));
    }
    case OptionType::kBool:
      return Status::OK();
    case OptionType::kString:
    case OptionType::kChoice:
      return CheckText(field, *static_cast<const std::string*>(member));
  }
  return Status::OK();
}

Status OptionTable::SetOrThrow(void* options, std::string_view name, std::string_view value) const {
  if (!status_.ok()) return status_;
  const OptionField* field = Find(name);
  return field == nullptr ? Unknown(name) : Store(*field, options, value);
}

Status OptionTable::Set(void* options, std::string_view name,
                        std::string_view value) const noexcept {
  return Guarded([&] { return SetOrThrow(options, name, value); });
}

Status OptionTable::Get(const void* options, std::string_view name,
                        std::string* value) const noexcept {
  return Guarded([&]() -> Status {
    if (!status_.ok()) return status_;
    const OptionField* field = Find(name);
    if (field == nullptr) return Unknown(name);
    *value = Print(*field, options);
    return Status::OK();
  });
}

Status OptionTable::Parse(void* options, std::string_view text) const noexcept {
  return Guarded([&]() -> Status {
    if (!status_.ok()) return status_;
    // Items are set on a copy, which replaces `options` only once all of it is valid.
    std::shared_ptr<void> scratch = clone_(options);
    Status s = ForEachItem(text, [&](std::string_view item) {
      std::string_view name, value;
      if (!SplitItem(item, &name, &value)) {
        return Status::InvalidArgument(
            Cat(subject_, " option string item '", item, "' is not name=value"));
      }
      return SetOrThrow(scratch.get(), name, value);
    });
    if (!s.ok()) return s;
    s = Validate(scratch.get());
    if (s.ok()) move_assign_(options, scratch.get());
    return s;
  });
}

Status OptionTable::Validate(const void* options) const noexcept {
  return Guarded([&]() -> Status {
    if (!status_.ok()) return status_;
    for (const OptionField& field : fields_) {
      Status s = CheckField(field, options);
      if (!s.ok()) return s;
    }
    for (const auto& check : checks_) {
      Status s = check(options);
      if (!s.ok()) return s;
    }
    return Status::OK();
  });
}

std::string OptionTable::ToString(const void* options) const noexcept {
  try {
    std::string out;
    if (!status_.ok()) return out;
    for (const OptionField& field : fields_) {
      out += Cat(out.empty() ? "" : ";", field.name, "=", Print(field, options));
    }
    return out;
  } catch (const std::bad_alloc&) {
    return {};
  }
}

const char* TypeName(OptionType type) noexcept {
  switch (type) {
    case OptionType::kCount:
      return "count";
    case OptionType::kBytes:
      return "bytes";
    case OptionType::kBool:
      return "bool";
    case OptionType::kString:
      return "string";
    case OptionType::kChoice:
      return "choice";
  }
  return "?";
}

std::string RangeText(const OptionField& field) {
  switch (field.type) {
    case OptionType::kCount:
    case OptionType::kBytes:
      return Cat(std::to_string(field.min), "..", std::to_string(field.max),
                 field.allows_auto ? " or auto" : "");
    case OptionType::kBool:
      return "true | false";
    case OptionType::kString:
      return "text without ; = { }";
    case OptionType::kChoice:
      return Join(field.choices, " | ");
  }
  return {};
}

std::string OptionTable::Markdown() const noexcept {
  try {
    std::string out;
    if (!status_.ok()) return out;
    out = "| option | type | default | range | description |\n| --- | --- | --- | --- | --- |\n";
    for (const OptionField& field : fields_) {
      out += Cat("| ", field.name, " | ", TypeName(field.type), " | ",
                 Cell(Print(field, defaults_.get())), " | ", Cell(RangeText(field)), " | ",
                 Cell(field.doc), " |\n");
    }
    return out;
  } catch (const std::bad_alloc&) {
    return {};
  }
}

Status AnyOptions::Empty() noexcept {
  return Status::InvalidArgument("these options are empty: AnyOptions was made without a table");
}

Status AnyOptions::Unshare() noexcept {
  if (table_ == nullptr) return Empty();
  if (!table_->status().ok()) return table_->status();
  if (options_.use_count() == 1) {
    // use_count() is a relaxed load. Acquire: pairs with the release in the
    // decrement by which the last other copy let go of the struct, so that
    // copy's reads of it happen before this object's writes.
    std::atomic_thread_fence(std::memory_order_acquire);
    return Status::OK();
  }
  try {
    options_ = table_->clone_(options_.get());  // the table's defaults are always shared
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("out of memory while copying options");
  }
  return Status::OK();
}

Status AnyOptions::Set(std::string_view name, std::string_view value) noexcept {
  Status s = Unshare();
  return s.ok() ? table_->Set(options_.get(), name, value) : s;
}

Status AnyOptions::Get(std::string_view name, std::string* value) const noexcept {
  return table_ == nullptr ? Empty() : table_->Get(options_.get(), name, value);
}

Status AnyOptions::Parse(std::string_view text) noexcept {
  Status s = Unshare();
  return s.ok() ? table_->Parse(options_.get(), text) : s;
}

Status AnyOptions::Validate() const noexcept {
  return table_ == nullptr ? Empty() : table_->Validate(options_.get());
}

std::string AnyOptions::ToString() const noexcept {
  return table_ == nullptr ? std::string() : table_->ToString(options_.get());
}

}  // namespace memrep::registry
