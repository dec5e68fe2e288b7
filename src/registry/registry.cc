#include "registry/registry.h"

#include <cstdio>

#include "concurrency/mutex.h"

namespace memrep::registry {
namespace {

struct State {
  concurrency::Mutex mu;
  std::vector<const Registration*> reps GUARDED_BY(mu);
  std::vector<std::function<void(const Registration&)>> listeners GUARDED_BY(mu);
};

bool Names(const Registration& r, std::string_view name) {
  if (r.name == name) return true;
  for (const std::string& alias : r.aliases) {
    if (alias == name) return true;
  }
  return false;
}

const Registration* FindLocked(const std::vector<const Registration*>& reps,
                               std::string_view name) {
  for (const Registration* r : reps) {
    if (Names(*r, name)) return r;
  }
  return nullptr;
}

// Built on first use (registrars run during static initialization, in an
// order nobody controls), with memrep's own reps first; never destroyed, so
// lookups during static destruction stay safe.
State& Get() {
  static State* state = [] {
    auto* s = new State();
    concurrency::MutexLock lock(&s->mu);
    s->reps = BuiltinReps();
    return s;
  }();
  return *state;
}

}  // namespace

Status Register(const Registration* registration) {
  State& state = Get();
  concurrency::MutexLock lock(&state.mu);
  std::vector<std::string> names = registration->aliases;
  names.push_back(registration->name);
  for (const std::string& name : names) {
    if (FindLocked(state.reps, name) != nullptr) {
      return Status::InvalidArgument("a rep named '" + name + "' is already registered");
    }
  }
  state.reps.push_back(registration);
  for (const auto& listener : state.listeners) listener(*registration);
  return Status::OK();
}

Registrar::Registrar(const Registration* registration) {
  Status s = Register(registration);
  // Two reps with one name is a build error; the first keeps the name.
  if (!s.ok())
    std::fprintf(stderr, "memrep: %s; this one is not registered\n", s.ToString().c_str());
}

const Registration* Find(std::string_view name) {
  State& state = Get();
  concurrency::MutexLock lock(&state.mu);
  return FindLocked(state.reps, name);
}

std::vector<const Registration*> All() {
  State& state = Get();
  concurrency::MutexLock lock(&state.mu);
  return state.reps;
}

std::string KnownNames() {
  std::string out;
  for (const Registration* r : All()) {
    out += (out.empty() ? "" : ", ") + r->name;
    for (const std::string& alias : r->aliases) out += ", " + alias;
  }
  return out;
}

void ForEachNowAndLater(std::function<void(const Registration&)> fn) {
  State& state = Get();
  concurrency::MutexLock lock(&state.mu);
  for (const Registration* r : state.reps) fn(*r);
  state.listeners.push_back(std::move(fn));
}

}  // namespace memrep::registry
