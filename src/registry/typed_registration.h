// TypedRegistration: what every rep's registration shares, written once.
//
// A rep is typed: an options struct, the table of its fields and a
// constructor that takes the struct. The registry is not: a Registration
// holds AnyOptions. TypedRegistration joins the two, so that a rep's
// registration.cc holds only what is its own (names, summary, traits,
// option table, constructor, optional hooks) and its options struct's
// Validate and Spec are one line each:
//
//   using Typed = registry::TypedRegistration<ColumnarOptions, OptionTableOf, ColumnarRep::Make>;
//
//   const registry::Registration& RepRegistration() {
//     static const registry::Registration registration = Typed::Describe({
//         .aliases = {"columnar"},
//         .summary = "...",
//         .traits = {.concurrent_insert = true, ...},
//         .positional_option = "block_size",
//     });
//     return registration;
//   }
//
//   Status ColumnarOptions::Validate() const { return Typed::Validate(*this); }
//   std::string ColumnarOptions::Spec() const { return Typed::Spec(*this); }
#pragma once

#include <memory>
#include <string>

#include "memrep/rep.h"
#include "memrep/status.h"
#include "registry/option_table.h"
#include "registry/registry.h"

namespace memrep::registry {

// A rep's constructor, typed by its options struct.
template <typename Options>
using MakeFunction = Status (*)(const Options& options, const RepContext& context,
                                std::unique_ptr<Rep>* out);

// Options: the rep's options struct, with its canonical name as
// `static constexpr const char* kName`. kTable: the table of its fields.
// kMake: builds the rep from options the table validated.
template <typename Options, const OptionTable& (*kTable)(), MakeFunction<Options> kMake>
class TypedRegistration {
 public:
  // `own` (aliases, summary, traits, positional option, conformance options
  // and any optional hooks) with the name, option table and constructor
  // filled in from Options::kName, kTable and kMake.
  static Registration Describe(Registration own) {
    own.name = Options::kName;
    own.options = &kTable();
    own.make = Make;
    return own;
  }

  // Options::Validate: every field in range, then the table's rules across
  // fields. (Rules that need the registry, check_options, are RepSpec's.)
  static Status Validate(const Options& options) { return kTable().Validate(&options); }

  // Options::Spec: "id=<name>;<option>=<value>;..." with every option, as
  // RepSpec::Parse reads it.
  static std::string Spec(const Options& options) {
    return std::string("id=") + Options::kName + ";" + kTable().ToString(&options);
  }

 private:
  static Status Make(const AnyOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out) {
    return kMake(options.As<Options>(), context, out);
  }
};

}  // namespace memrep::registry
