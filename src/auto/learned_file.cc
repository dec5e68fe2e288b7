#include "auto/learned_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "concurrency/mutex.h"

namespace memrep::auto_rep {
namespace {

constexpr const char* kMagic = "memrep.Auto learned 1";

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool ParseOp(const std::string& name, Op* op) {
  for (size_t o = 0; o < kOps; ++o) {
    if (name == OpName(static_cast<Op>(o))) {
      *op = static_cast<Op>(o);
      return true;
    }
  }
  return false;
}

// A whole file: its lineages' sections.
using Sections = std::map<uint32_t, Learned>;

// Parses `text`. Corruption or InvalidArgument (foreign) as LoadLearned says.
Status Parse(const std::string& path, const std::string& text, Sections* out) {
  auto corrupt = [&](const std::string& why) {
    return Status::Corruption("memrep.Auto learned_file " + path + " is corrupt (" + why + ")");
  };
  std::istringstream in(text);
  std::string line, body;
  if (!std::getline(in, line) || line != kMagic) {
    return Status::InvalidArgument("memrep.Auto learned_file " + path +
                                   " is not a file of this format (its first line is not '" +
                                   kMagic + "')");
  }
  body += line + "\n";
  if (!std::getline(in, line) || line.rfind("machine ", 0) != 0) return corrupt("no machine line");
  body += line + "\n";
  const std::string machine = line.substr(8);
  bool ended = false;
  Sections sections;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "end") {
      std::string sum;
      words >> sum;
      if (sum != Hex(Fnv1a(body))) return corrupt("its checksum does not match its contents");
      ended = true;
      break;
    }
    body += line + "\n";
    uint32_t id = 0;
    if (word == "lineage") {
      std::string settled_word, settled;
      if (!(words >> id >> settled_word >> settled) || settled_word != "settled") {
        return corrupt("a bad lineage line: '" + line + "'");
      }
      sections[id].settled = settled == "-" ? "" : settled;
    } else if (word == "cost") {
      std::string rep, op_name;
      Measured m;
      Op op;
      if (!(words >> id >> rep >> op_name >> m.ns >> m.samples) || !ParseOp(op_name, &op) ||
          m.ns < 0 || m.samples == 0 || sections.count(id) == 0) {
        return corrupt("a bad cost line: '" + line + "'");
      }
      sections[id].book.Set(rep, op, m);
    } else {
      return corrupt("an unknown line: '" + line + "'");
    }
  }
  if (!ended) return corrupt("it has no end line");
  if (machine != MachineFingerprint()) {
    return Status::InvalidArgument("memrep.Auto learned_file " + path +
                                   " was learned on another machine (" + machine +
                                   "; this one is " + MachineFingerprint() + ")");
  }
  *out = std::move(sections);
  return Status::OK();
}

std::string Render(const Sections& sections) {
  std::string body = std::string(kMagic) + "\nmachine " + MachineFingerprint() + "\n";
  for (const auto& [id, learned] : sections) {
    const std::string ids = std::to_string(id);
    body +=
        "lineage " + ids + " settled " + (learned.settled.empty() ? "-" : learned.settled) + "\n";
    for (const auto& [rep, ops] : learned.book.reps()) {
      for (size_t o = 0; o < kOps; ++o) {
        if (ops[o].samples == 0) continue;
        char ns[48];
        std::snprintf(ns, sizeof ns, "%.1f", ops[o].ns);
        body += "cost " + ids + " " + rep + " " + OpName(static_cast<Op>(o)) + " " + ns + " " +
                std::to_string(ops[o].samples) + "\n";
      }
    }
  }
  return body + "end " + Hex(Fnv1a(body)) + "\n";
}

Status Read(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::NotFound("memrep.Auto learned_file " + path + " does not exist yet");
  }
  std::ostringstream all;
  all << in.rdbuf();
  *text = all.str();
  return Status::OK();
}

concurrency::Mutex files_mu;

}  // namespace

std::string MachineFingerprint() {
  static const std::string fingerprint = [] {
    std::string model = "an unknown CPU";
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.rfind("model name", 0) != 0) continue;
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) model = line.substr(colon + 2);
      break;
    }
    for (char& c : model) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " cpus";
  }();
  return fingerprint;
}

Status LoadLearned(const std::string& path, uint32_t id, Learned* out) try {
  concurrency::MutexLock lock(&files_mu);
  std::string text;
  Status s = Read(path, &text);
  if (!s.ok()) return s;
  Sections sections;
  s = Parse(path, text, &sections);
  if (!s.ok()) return s;
  const auto it = sections.find(id);
  if (it == sections.end()) {
    return Status::NotFound("memrep.Auto learned_file " + path + " has nothing for lineage " +
                            std::to_string(id) + " yet");
  }
  *out = std::move(it->second);
  return Status::OK();
} catch (const std::exception& e) {
  return Status::IOError(std::string("memrep.Auto learned_file: reading ") + path + ": " +
                         e.what());
}

Status SaveLearned(const std::string& path, uint32_t id, const Learned& learned) try {
  concurrency::MutexLock lock(&files_mu);
  std::string text;
  Sections sections;
  // The other lineages' sections of a valid file are kept; a corrupt or
  // foreign file is replaced.
  if (Read(path, &text).ok() && !Parse(path, text, &sections).ok()) sections.clear();
  sections[id] = learned;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << Render(sections);
    out.close();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      return Status::IOError("memrep.Auto learned_file: cannot write " + tmp + ": " +
                             std::strerror(err));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return Status::IOError("memrep.Auto learned_file: cannot rename " + tmp + " to " + path + ": " +
                           std::strerror(err));
  }
  return Status::OK();
} catch (const std::exception& e) {
  return Status::IOError(std::string("memrep.Auto learned_file: writing ") + path + ": " +
                         e.what());
}

}  // namespace memrep::auto_rep
