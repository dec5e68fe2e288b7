// ops_fuzz: plays an operation sequence decoded from the input on one rep
// through the standalone face (memrep::MemTable), and compares every answer
// with a model (ops_model.h). The rep comes from memrep::ListReps(), so every
// registered rep is fuzzed without editing this file.
//
// Input: a header, then operations, each an opcode byte and kArgBytes bytes
// of arguments (Args). A byte past the end reads as 0, so every input is
// valid.
//   byte 0  the rep: an index into ListReps()
//   byte 1  its options: the defaults, one of its conformance options strings
//           (tiny thresholds that run its background paths), or every number
//           option at its minimum
//   byte 2  the comparator: bytewise, its reverse, or either through a
//           comparator memrep does not recognise (virtual calls, no prefixes)
//   byte 3  MemTableOptions::write_buffer_size
// Keys come from a small alphabet so that operations meet on them; values
// run from empty to a few KB. Writes use sequences that are new, old, near
// kMaxSequenceNumber, or (for a rep that finds every duplicate) taken.
//
// Any difference prints the operation's index, what it did and what differs,
// then aborts: libFuzzer saves the input. MEMREP_FUZZ_TRACE=1 in the
// environment prints every operation as it runs (for reading a reproducer).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memrep/memtable.h"
#include "memrep/registry.h"
#include "ops_input.h"
#include "ops_model.h"
#include "registry/registry.h"

namespace memrep::fuzz {
namespace {

constexpr size_t kMaxOps = 300;

// One record of a write, decoded from the input.
struct Record {
  std::string key;
  SequenceNumber seq = 0;
  uint8_t type = 0;
  std::string value;
};

class Runner {
 public:
  Runner(Input* in, const RepInfo& rep, std::string options, std::unique_ptr<MemTable> table,
         bool reverse, std::string comparator)
      : in_(*in),
        rep_(rep),
        options_(std::move(options)),
        comparator_(std::move(comparator)),
        table_(std::move(table)),
        model_(reverse),
        trace_(std::getenv("MEMREP_FUZZ_TRACE") != nullptr) {}

  void Run() {
    Check(table_->NewIterator(&iter_).ok(), "NewIterator failed");
    for (op_index_ = 0; op_index_ < kMaxOps && !in_.empty(); ++op_index_) {
      const uint8_t opcode = in_.Byte();
      args_ = Args(&in_);
      RunOne(opcode);
      CheckInvariants();
    }
    op_ = "final scan";
    ScanForward();
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    std::fprintf(stderr, "ops_fuzz: rep %s (options \"%s\", comparator %s): op #%zu %s: %s\n",
                 rep_.name.c_str(), options_.c_str(), comparator_.c_str(), op_index_, op_.c_str(),
                 what.c_str());
    std::abort();
  }
  void Check(bool ok, const std::string& what) const {
    if (!ok) Fail(what);
  }
  void Begin(std::string op) {
    op_ = std::move(op);
    if (trace_) std::fprintf(stderr, "op #%zu %s\n", op_index_, op_.c_str());
  }

  bool finds_every_duplicate() const {
    return table_->traits().duplicates == RepTraits::Duplicates::kAll;
  }

  void RunOne(uint8_t opcode) {
    switch (opcode % 16) {
      case 0:
      case 1:
      case 2:
        return WriteOne(static_cast<uint8_t>(ValueType::kValue));
      case 3:
        return WriteOne(static_cast<uint8_t>(ValueType::kDeletion));
      case 4:
        return WriteOne(static_cast<uint8_t>(ValueType::kMerge));
      case 5:
        return WriteBatchOp();
      case 6:
        return WriteRecordsOp();
      case 7:
      case 8:
        return GetOp();
      case 9:
        Begin("ScanForward");
        return ScanForward();
      case 10:
        Begin("ScanBackward");
        return ScanBackward();
      case 11:
        return SeekOp(/*backward=*/false);
      case 12:
        return SeekOp(/*backward=*/true);
      case 13:  // Freeze rarely: the writes after it are all refused
        return opcode >= 0xc0 ? FreezeOp() : DrainOp();
      case 14:
        return InvalidWriteOp();
      default:
        Begin("NewIterator");
        iter_.reset();
        Check(table_->NewIterator(&iter_).ok(), "NewIterator failed");
    }
  }

  // A sequence for a record of `key`: usually the next one; sometimes an
  // older one, one near kMaxSequenceNumber, or one `key` already has.
  SequenceNumber PickSequence(const std::string& key, size_t count = 1) {
    const uint8_t how = args_.Byte();
    switch (how % 8) {
      case 5:
        return args_.Word() % (last_seq_ + 1);
      case 6:
        return kMaxSequenceNumber - (how >> 3);
      case 7: {
        SequenceNumber seq;
        if (model_.SequenceOf(key, how >> 3, &seq)) return seq;
        [[fallthrough]];
      }
      default:
        last_seq_ += 1 + (how >> 6);  // sometimes a gap
        const SequenceNumber seq = last_seq_;
        if (count > 1) last_seq_ += count - 1;  // the rest of a batch's sequences
        return seq;
    }
  }

  Record DecodeRecord(uint8_t type) {
    Record r;
    r.key = KeyFrom(args_.Byte());
    r.type = type;
    r.seq = PickSequence(r.key);
    if (type != static_cast<uint8_t>(ValueType::kDeletion)) r.value = ValueFor(args_.Byte(), r.seq);
    return r;
  }

  std::string Describe(const Record& r) const {
    return std::string(TypeName(r.type)) + "(" + Quoted(r.key) + ", seq " + std::to_string(r.seq) +
           ", " + std::to_string(r.value.size()) + "-byte value)";
  }

  // What a write of `records` should answer, applied to the model: records
  // land in order until the first duplicate (of a stored record or of an
  // earlier one in the write), which is refused with AlreadyExists; a frozen
  // table takes none. Returns false if the write must not be made: it holds
  // a duplicate the rep does not promise to find (the caller's error).
  bool Expect(const std::vector<Record>& records, Status::Code* code, size_t* lands) const {
    *code = Status::Code::kOk;
    *lands = records.size();
    for (size_t i = 0; i < records.size() && *code == Status::Code::kOk; ++i) {
      bool duplicate = model_.Contains(records[i].key, records[i].seq);
      for (size_t j = 0; j < i; ++j) {
        duplicate |= records[j].key == records[i].key && records[j].seq == records[i].seq;
      }
      if (!duplicate) continue;
      if (!finds_every_duplicate()) return false;
      *code = Status::Code::kAlreadyExists;
      *lands = i;
    }
    if (table_->frozen()) {
      *code = Status::Code::kFrozen;
      *lands = 0;
    }
    return true;
  }

  // Checks a write's answer and applies what landed to the model. A write
  // that finds the rep full (or no memory) stores a prefix of its records,
  // found by reading them back.
  void Apply(const std::vector<Record>& records, const Status& s, Status::Code code, size_t lands) {
    if (s.IsFull() || s.IsOutOfMemory()) {
      Check(!s.message().empty(), "an error with no message: " + s.ToString());
      lands = 0;
      while (lands < records.size() && Stored(records[lands])) ++lands;
      for (size_t i = lands; i < records.size(); ++i) {
        Check(!Stored(records[i]), s.ToString() + ", yet record " + std::to_string(i) +
                                       " after the first one refused was stored");
      }
    } else {
      Check(s.code() == code, "answered " + s.ToString() + ", expected " +
                                  (code == Status::Code::kOk ? "OK" : Status::CodeName(code)));
      Check(s.ok() || !s.message().empty(), "an error with no message: " + s.ToString());
    }
    for (size_t i = 0; i < lands; ++i) {
      model_.Add(records[i].key, records[i].seq, records[i].type, records[i].value);
    }
  }

  // Whether the table holds the record (read through a fresh iterator).
  bool Stored(const Record& r) const {
    std::unique_ptr<MemTableIterator> it;
    Check(table_->NewIterator(&it).ok(), "NewIterator failed");
    it->Seek(r.key, r.seq);
    return it->Valid() && it->entry().user_key == r.key && it->entry().sequence() == r.seq;
  }

  void WriteOne(uint8_t type) {
    const Record r = DecodeRecord(type);
    Begin(Describe(r));
    Status::Code code;
    size_t lands;
    if (!Expect({r}, &code, &lands)) return Begin(op_ + ": skipped, a duplicate");
    Apply({r}, table_->Add(r.key, r.seq, static_cast<ValueType>(r.type), r.value), code, lands);
  }

  // Up to 8 records with consecutive sequences, as one WriteBatch.
  void WriteBatchOp() {
    const size_t count = args_.Byte() % 9;
    const std::string first_key = KeyFrom(args_.Byte());
    const SequenceNumber first_seq = PickSequence(first_key, count);
    std::vector<Record> records;
    WriteBatch batch;
    std::string text = "WriteBatch at seq " + std::to_string(first_seq) + ":";
    for (size_t i = 0; i < count; ++i) {
      Record r;
      r.key = i == 0 ? first_key : KeyFrom(args_.Byte());
      r.seq = first_seq + i;
      const uint8_t kind = args_.Byte();
      r.type = static_cast<uint8_t>(kind % 3 == 0   ? ValueType::kDeletion
                                    : kind % 3 == 1 ? ValueType::kValue
                                                    : ValueType::kMerge);
      if (r.type != static_cast<uint8_t>(ValueType::kDeletion)) {
        r.value = ValueFor(kind >> 2, r.seq);
      }
      const Status added =
          r.type == static_cast<uint8_t>(ValueType::kValue)   ? batch.Put(r.key, r.value)
          : r.type == static_cast<uint8_t>(ValueType::kMerge) ? batch.Merge(r.key, r.value)
                                                              : batch.Delete(r.key);
      Check(added.ok(), "WriteBatch refused a record: " + added.ToString());
      text += " " + Describe(r);
      records.push_back(std::move(r));
    }
    Begin(text);
    Check(batch.Count() == count, "WriteBatch::Count is " + std::to_string(batch.Count()));
    Status::Code code;
    size_t lands;
    if (count > 0 && first_seq > kMaxSequenceNumber - (count - 1)) {
      // Past the largest sequence: refused before anything lands.
      return Apply(records, table_->Write(batch, first_seq), Status::Code::kInvalidArgument, 0);
    }
    if (!Expect(records, &code, &lands)) return Begin(op_ + ": skipped, a duplicate");
    Apply(records, table_->Write(batch, first_seq), code, lands);
  }

  // Up to 8 records, each with its own key, sequence and type, as one span.
  void WriteRecordsOp() {
    const size_t count = args_.Byte() % 9;
    std::vector<Record> records;
    std::string text = "Write of records:";
    for (size_t i = 0; i < count; ++i) {
      const uint8_t kind = args_.Byte() % 3;
      records.push_back(DecodeRecord(static_cast<uint8_t>(kind == 0   ? ValueType::kDeletion
                                                          : kind == 1 ? ValueType::kValue
                                                                      : ValueType::kMerge)));
      text += " " + Describe(records.back());
    }
    Begin(text);
    Status::Code code;
    size_t lands;
    if (!Expect(records, &code, &lands)) return Begin(op_ + ": skipped, a duplicate");
    Apply(records, table_->Write(Views(records)), code, lands);
  }

  static std::vector<EntryView> Views(const std::vector<Record>& records) {
    std::vector<EntryView> views;
    for (const Record& r : records) {
      views.push_back(EntryView{r.key, PackTag(r.seq, r.type), r.value});
    }
    return views;
  }

  // Writes the face must refuse as InvalidArgument, storing nothing, frozen
  // or not: a sequence above kMaxSequenceNumber, a type it does not store, a
  // batch whose sequences would pass the largest.
  void InvalidWriteOp() {
    const uint8_t kind = args_.Byte();
    const std::string key = KeyFrom(args_.Byte());
    static constexpr uint8_t kBadTypes[] = {0x03, 0x07, 0x16, 0xff};
    const uint8_t bad_type = kBadTypes[(kind >> 2) & 3];
    const uint64_t before = table_->NumEntries();
    Status s;
    switch (kind & 3) {
      case 0: {
        const SequenceNumber seq = kMaxSequenceNumber + 1 + (uint64_t{kind} << 50);
        Begin("Put(" + Quoted(key) + ", seq " + std::to_string(seq) + " > kMaxSequenceNumber)");
        s = table_->Put(key, "v", seq);
        break;
      }
      case 1:
        Begin("Add(" + Quoted(key) + ") of type " + std::to_string(bad_type));
        s = table_->Add(key, ++last_seq_, static_cast<ValueType>(bad_type), "v");
        break;
      case 2: {
        WriteBatch batch;
        Check(batch.Put(key, "v").ok() && batch.Delete(key).ok(), "WriteBatch refused a record");
        Begin("WriteBatch of 2 at seq kMaxSequenceNumber");
        s = table_->Write(batch, kMaxSequenceNumber);
        break;
      }
      default: {
        // A good record, then one of a bad type: the first must not land either.
        const SequenceNumber seq = ++last_seq_;
        const std::vector<EntryView> views = {EntryView::Of(key, seq, ValueType::kValue, "good"),
                                              EntryView{key, PackTag(seq + 1, bad_type), "bad"}};
        ++last_seq_;
        Begin("Write of a good record and one of type " + std::to_string(bad_type));
        s = table_->Write(views);
      }
    }
    Check(s.IsInvalidArgument() && !s.message().empty(),
          "answered " + s.ToString() + ", expected InvalidArgument with a message");
    Check(table_->NumEntries() == before, "a refused write stored something");
  }

  // Get at a snapshot: none, before, at or after the key's records, or
  // above kMaxSequenceNumber (read as the largest).
  void GetOp() {
    const std::string key = KeyFrom(args_.Byte());
    const uint8_t how = args_.Byte();
    SequenceNumber snapshot = kMaxSequenceNumber;
    SequenceNumber seq;
    switch (how % 6) {
      case 1:
        snapshot = last_seq_;
        break;
      case 2:
        snapshot = args_.Word() % (last_seq_ + 2);
        break;
      case 3:
      case 4:
        if (model_.SequenceOf(key, how >> 3, &seq)) snapshot = how % 6 == 3 ? seq : seq - 1;
        break;
      case 5:
        snapshot = UINT64_MAX;
        break;
    }
    Begin("Get(" + Quoted(key) + ", snapshot " + std::to_string(snapshot) + ")");
    std::string value;
    const Status s = table_->Get(key, snapshot, &value);
    const ModelRecord* r = model_.Visible(key, std::min(snapshot, kMaxSequenceNumber));
    if (r == nullptr || r->type == static_cast<uint8_t>(ValueType::kDeletion)) {
      Check(s.IsNotFound(), "answered " + s.ToString() + ", expected NotFound" +
                                (r ? " (deleted)" : " (no record)"));
    } else if (r->type == static_cast<uint8_t>(ValueType::kValue)) {
      Check(s.ok(), "answered " + s.ToString() + ", expected a " + std::to_string(r->value.size()) +
                        "-byte value");
      Check(value == r->value, "wrong value: " + Quoted(value.substr(0, 40)) + " (" +
                                   std::to_string(value.size()) + " bytes), expected " +
                                   Quoted(r->value.substr(0, 40)) + " (" +
                                   std::to_string(r->value.size()) + " bytes)");
    } else {
      Check(s.IsInvalidArgument() && !s.message().empty(),
            "answered " + s.ToString() + ", expected InvalidArgument for a merge operand");
    }
  }

  static bool Same(const EntryView& e, Model::Map::const_iterator expected) {
    return e.user_key == expected->first.user_key && e.sequence() == expected->first.seq &&
           e.type() == expected->second.type && e.value == expected->second.value;
  }

  static std::string DescribeEntry(const EntryView& e) {
    return Quoted(e.user_key) + " seq " + std::to_string(e.sequence()) + " " + TypeName(e.type()) +
           " with a " + std::to_string(e.value.size()) + "-byte value";
  }

  static std::string DescribeRecord(Model::Map::const_iterator r) {
    return Quoted(r->first.user_key) + " seq " + std::to_string(r->first.seq) + " " +
           TypeName(r->second.type) + " with a " + std::to_string(r->second.value.size()) +
           "-byte value";
  }

  // The iterator is where the model says (its end: not Valid). `step` and
  // `n` say where for the report, which is built only on a failure: this
  // runs for every record.
  void CheckAt(Model::Map::const_iterator expected, const char* step, size_t n) const {
    auto where = [&] { return std::string(step) + " " + std::to_string(n); };
    const Status status = iter_->status();
    if (!status.ok()) Fail(where() + ": iterator status " + status.ToString());
    if (expected == model_.records().end()) {
      if (iter_->Valid()) {
        Fail(where() + ": iterator at " + DescribeEntry(iter_->entry()) + ", expected the end");
      }
      return;
    }
    if (!iter_->Valid())
      Fail(where() + ": iterator at the end, expected " + DescribeRecord(expected));
    const EntryView e = iter_->entry();
    if (!Same(e, expected)) {
      Fail(where() + ": iterator at " + DescribeEntry(e) + ", expected " +
           DescribeRecord(expected));
    }
  }

  void ScanForward() {
    iter_->SeekToFirst();
    size_t i = 0;
    for (auto it = model_.records().begin(); it != model_.records().end(); ++it, ++i) {
      CheckAt(it, "SeekToFirst, record", i);
      iter_->Next();
    }
    CheckAt(model_.records().end(), "SeekToFirst, the end after records:", i);
  }

  void ScanBackward() {
    iter_->SeekToLast();
    size_t i = 0;
    for (auto it = model_.records().rbegin(); it != model_.records().rend(); ++it, ++i) {
      CheckAt(std::prev(it.base()), "SeekToLast, record (counting back)", i);
      iter_->Prev();
    }
    CheckAt(model_.records().end(), "SeekToLast, the end after records:", i);
  }

  // Seek (or SeekForPrev), then up to 15 steps, each Next or Prev as the
  // input says, checking every position.
  void SeekOp(bool backward) {
    const std::string key = KeyFrom(args_.Byte());
    const uint8_t how = args_.Byte();
    SequenceNumber seq = backward ? 0 : kMaxSequenceNumber;  // the defaults
    if (how & 1) seq = args_.Word() % (last_seq_ + 2);
    if (how & 2) (void)model_.SequenceOf(key, how >> 4, &seq);
    // Above kMaxSequenceNumber: no record is newer, so the same as the
    // largest (Get reads such a snapshot so too).
    if ((how & 0xc0) == 0xc0) seq = kMaxSequenceNumber + 1 + (uint64_t{args_.Byte()} << 48);
    const size_t steps = (how >> 2) & 15;
    const uint16_t directions = args_.Word();
    Begin(std::string(backward ? "SeekForPrev(" : "Seek(") + Quoted(key) + ", " +
          std::to_string(seq) + ") and " + std::to_string(steps) + " steps");
    const SequenceNumber model_seq = std::min(seq, kMaxSequenceNumber);
    auto expected = backward ? model_.SeekForPrev(key, model_seq) : model_.Seek(key, model_seq);
    if (backward) {
      iter_->SeekForPrev(key, seq);
    } else {
      iter_->Seek(key, seq);
    }
    CheckAt(expected, "positioning, step", 0);
    for (size_t i = 0; i < steps && expected != model_.records().end(); ++i) {
      const bool next = directions >> i & 1;
      if (next) {
        ++expected;
        iter_->Next();
      } else {
        expected =
            expected == model_.records().begin() ? model_.records().end() : std::prev(expected);
        iter_->Prev();
      }
      CheckAt(expected, next ? "Next, step" : "Prev, step", i + 1);
    }
  }

  void FreezeOp() {
    if (table_->frozen()) return;
    Begin("Freeze");
    const Status frozen = table_->Freeze();
    Check(frozen.ok(), "Freeze: " + frozen.ToString());
    Check(table_->frozen(), "frozen() is false after Freeze");
    frozen_usage_ = table_->MemoryUsage();
  }

  void DrainOp() {
    Begin("Drain");
    auto expected = model_.records().begin();
    size_t i = 0;
    const Status s = table_->Drain([&](const EntryView& e) {
      if (expected == model_.records().end()) {
        Fail("Drain gave " + DescribeEntry(e) + " after every record of the model");
      }
      if (!Same(e, expected)) {
        Fail("Drain's record " + std::to_string(i) + " is " + DescribeEntry(e) + ", expected " +
             DescribeRecord(expected));
      }
      ++expected;
      ++i;
    });
    if (!table_->frozen()) {
      Check(s.IsInvalidArgument() && !s.message().empty() && i == 0,
            "Drain before Freeze answered " + s.ToString() + ", expected InvalidArgument");
      return;
    }
    Check(s.ok(), "Drain answered " + s.ToString());
    Check(expected == model_.records().end(), "Drain gave " + std::to_string(i) + " of " +
                                                  std::to_string(model_.records().size()) +
                                                  " records");
  }

  // After every operation: the count, and the promises about memory.
  void CheckInvariants() {
    if (table_->NumEntries() != model_.records().size()) {
      Fail("NumEntries is " + std::to_string(table_->NumEntries()) + ", the model holds " +
           std::to_string(model_.records().size()));
    }
    const bool nearly_full = table_->NearlyFull();
    if (nearly_full_ && !nearly_full) Fail("NearlyFull turned back to false");
    nearly_full_ = nearly_full;
    if (table_->frozen() && table_->MemoryUsage() > frozen_usage_) {
      Fail("MemoryUsage grew after Freeze, from " + std::to_string(frozen_usage_) + " to " +
           std::to_string(table_->MemoryUsage()));
    }
  }

  Input& in_;
  Args args_;  // the arguments of the operation running
  const RepInfo& rep_;
  const std::string options_;
  const std::string comparator_;
  std::unique_ptr<MemTable> table_;
  std::unique_ptr<MemTableIterator> iter_;  // after table_: destroyed before it
  Model model_;
  const bool trace_;
  size_t op_index_ = 0;
  std::string op_ = "open";
  SequenceNumber last_seq_ = 0;  // the largest sequence handed out, besides those near the top
  bool nearly_full_ = false;
  size_t frozen_usage_ = 0;
};

// The options strings a rep is fuzzed with: its defaults, its conformance
// options, and every number option at the low end of its range.
std::vector<std::string> OptionsOf(const RepInfo& rep) {
  std::vector<std::string> options = {rep.name};
  if (const registry::Registration* r = registry::Find(rep.name)) {
    for (const std::string& o : r->conformance_options)
      options.push_back("id=" + rep.name + ";" + o);
  }
  std::string minimums = "id=" + rep.name;
  for (const OptionInfo& o : rep.options) {
    const size_t dots = o.range.find("..");
    if ((o.type == "count" || o.type == "bytes") && dots != std::string::npos) {
      minimums += ";" + o.name + "=" + o.range.substr(0, dots);
    }
  }
  options.push_back(minimums);
  return options;
}

}  // namespace
}  // namespace memrep::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memrep;
  static const std::vector<RepInfo> reps = ListReps();
  fuzz::Input in(data, size);
  const RepInfo& rep = reps[in.Byte() % reps.size()];
  const std::vector<std::string> all_options = fuzz::OptionsOf(rep);
  const size_t options_index = in.Byte() % all_options.size();
  struct Order {
    const UserKeyComparator* comparator;
    bool reverse;
    const char* name;
  };
  static const Order kOrders[] = {{nullptr, false, "bytewise"},
                                  {ReverseBytewiseComparator(), true, "reverse"},
                                  {&fuzz::kVirtualBytewise, false, "custom bytewise"},
                                  {&fuzz::kVirtualReverse, true, "custom reverse"}};
  const Order& order = kOrders[in.Byte() % 4];
  static constexpr uint64_t kWriteBufferSizes[] = {uint64_t{64} << 20, uint64_t{1} << 20, 4096};

  MemTableOptions options;
  options.rep = all_options[options_index];
  options.comparator = order.comparator;
  options.write_buffer_size = kWriteBufferSizes[in.Byte() % 3];
  std::unique_ptr<MemTable> table;
  const Status s = MemTable::Open(options, &table);
  if (!s.ok()) {
    // A rep may refuse a comparator (its traits say which) and the
    // minimums may break a rule across options; the rest must open.
    const bool custom =
        order.comparator == &fuzz::kVirtualBytewise || order.comparator == &fuzz::kVirtualReverse;
    const bool may_refuse = options_index + 1 == all_options.size() ||
                            (custom && rep.traits.comparators == RepTraits::Comparators::kBytewise);
    if (!may_refuse || !s.IsInvalidArgument() || s.message().empty()) {
      std::fprintf(stderr, "ops_fuzz: MemTable::Open(\"%s\", comparator %s) failed: %s\n",
                   options.rep.c_str(), order.name, s.ToString().c_str());
      std::abort();
    }
    return 0;
  }
  fuzz::Runner(&in, rep, options.rep, std::move(table), order.reverse, order.name).Run();
  return 0;
}
