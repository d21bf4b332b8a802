#include "engine/pickle_input/pickle_reader.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "engine/util/input_file.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

struct Opcode {
  unsigned char code;
  const char* name;
};

// Every opcode of pickletools' table, for errors that name what they refuse.
constexpr Opcode kOpcodes[] = {
    {'(', "MARK"},
    {'.', "STOP"},
    {'0', "POP"},
    {'1', "POP_MARK"},
    {'2', "DUP"},
    {'F', "FLOAT"},
    {'I', "INT"},
    {'J', "BININT"},
    {'K', "BININT1"},
    {'L', "LONG"},
    {'M', "BININT2"},
    {'N', "NONE"},
    {'P', "PERSID"},
    {'Q', "BINPERSID"},
    {'R', "REDUCE"},
    {'S', "STRING"},
    {'T', "BINSTRING"},
    {'U', "SHORT_BINSTRING"},
    {'V', "UNICODE"},
    {'X', "BINUNICODE"},
    {'a', "APPEND"},
    {'b', "BUILD"},
    {'c', "GLOBAL"},
    {'d', "DICT"},
    {'}', "EMPTY_DICT"},
    {'e', "APPENDS"},
    {'g', "GET"},
    {'h', "BINGET"},
    {'i', "INST"},
    {'j', "LONG_BINGET"},
    {'l', "LIST"},
    {']', "EMPTY_LIST"},
    {'o', "OBJ"},
    {'p', "PUT"},
    {'q', "BINPUT"},
    {'r', "LONG_BINPUT"},
    {'s', "SETITEM"},
    {'t', "TUPLE"},
    {')', "EMPTY_TUPLE"},
    {'u', "SETITEMS"},
    {'G', "BINFLOAT"},
    {'B', "BINBYTES"},
    {'C', "SHORT_BINBYTES"},
    {0x80, "PROTO"},
    {0x81, "NEWOBJ"},
    {0x82, "EXT1"},
    {0x83, "EXT2"},
    {0x84, "EXT4"},
    {0x85, "TUPLE1"},
    {0x86, "TUPLE2"},
    {0x87, "TUPLE3"},
    {0x88, "NEWTRUE"},
    {0x89, "NEWFALSE"},
    {0x8a, "LONG1"},
    {0x8b, "LONG4"},
    {0x8c, "SHORT_BINUNICODE"},
    {0x8d, "BINUNICODE8"},
    {0x8e, "BINBYTES8"},
    {0x8f, "EMPTY_SET"},
    {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"},
    {0x92, "NEWOBJ_EX"},
    {0x93, "STACK_GLOBAL"},
    {0x94, "MEMOIZE"},
    {0x95, "FRAME"},
    {0x96, "BYTEARRAY8"},
    {0x97, "NEXT_BUFFER"},
    {0x98, "READONLY_BUFFER"},
};

const char* OpcodeName(unsigned char code) {
  for (const Opcode& opcode : kOpcodes) {
    if (opcode.code == code) return opcode.name;
  }
  return nullptr;
}

bool IsOneOf(unsigned char code, std::initializer_list<unsigned char> codes) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// Why an opcode this reader does not take is refused, in the user's terms.
std::string WhyRefused(unsigned char code) {
  // GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID, BINPERSID
  if (IsOneOf(code, {'c', 0x93, 'R', 'b', 'i', 'o', 0x81, 0x92, 0x82, 0x83, 0x84, 'P', 'Q'})) {
    return "names a class or a function, and a pickle that does can run code when loaded: "
           "advisor reads only plain containers, numbers and strings";
  }
  if (IsOneOf(code, {0x8f, 0x90, 0x91})) return "builds a set, which no memory snapshot holds";
  if (IsOneOf(code, {0x97, 0x98})) {
    return "refers to an out-of-band buffer, which a file cannot carry";
  }
  return "is protocol 0 or 1's (advisor reads protocols 2 to 5, as Python writes them)";
}

std::uint64_t LittleEndian(const unsigned char* bytes, std::size_t n) {
  std::uint64_t value = 0;
  for (std::size_t i = n; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

// Runs the opcodes into a PickleDocument. Python's unpickler keeps a stack of values and a stack
// of marks; a value pushed after the last mark belongs to that mark's container-to-be, and no
// opcode but one that ends the mark may reach below it.
class PickleBuilder {
 public:
  static PickleDocument Build(std::string bytes, const std::string& source,
                              const PickleLimits& limits) {
    PickleDocument document;
    document.bytes_ = std::move(bytes);
    // Python's snapshots store a value in about every 4 bytes: room for one in every 3 saves the
    // copies (and page faults) of growing a 200 MB array by doubling.
    document.items_.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(document.bytes_.size() / 3, limits.max_values)));
    PickleBuilder(document, source, limits).Run();
    return document;
  }

 private:
  PickleBuilder(PickleDocument& document, const std::string& source, const PickleLimits& limits)
      : document_(document),
        source_(source),
        limits_(limits),
        data_(reinterpret_cast<const unsigned char*>(document.bytes_.data())),
        size_(document.bytes_.size()) {}

  void Run() {
    while (true) {
      if (position_ >= size_) {
        Fail(position_, "the pickle ends before its STOP opcode (the file is cut short)");
      }
      opcode_at_ = position_;
      const unsigned char op = data_[position_++];
      switch (op) {
        case 0x80: {  // PROTO
          const unsigned version = *Take(1);
          if (version < 2 || version > 5) {
            Fail(opcode_at_, Printf("pickle protocol %u: advisor reads protocols 2 to 5", version));
          }
          break;
        }
        case 0x95: {  // FRAME: a hint for buffered readers; its length must still fit
          const std::uint64_t length = LittleEndian(Take(8), 8);
          if (length > size_ - position_) {
            Fail(opcode_at_, Printf("a frame of %llu bytes runs past the end of the file (%llu "
                                    "bytes left): the file is cut short",
                                    static_cast<unsigned long long>(length),
                                    static_cast<unsigned long long>(size_ - position_)));
          }
          break;
        }
        case '.':  // STOP
          Stop();
          return;
        case '(':  // MARK
          if (marks_.size() >= limits_.max_depth) {
            Fail(opcode_at_, Printf("containers nest deeper than %zu levels", limits_.max_depth));
          }
          marks_.push_back(stack_.size());
          break;
        case '0':  // POP: the top value, or an empty mark
          if (Available() > 0) {
            stack_.pop_back();
          } else if (!marks_.empty()) {
            marks_.pop_back();
          } else {
            Fail(opcode_at_, "POP with nothing on the stack");
          }
          break;
        case '1':  // POP_MARK
          stack_.resize(PopMark());
          break;
        case 'N':
          Push(PickleValue());
          break;
        case 0x88:  // NEWTRUE
        case 0x89:  // NEWFALSE
          PushBool(op == 0x88);
          break;
        case 'J':  // BININT: signed 32 bits
          PushInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(LittleEndian(Take(4), 4))));
          break;
        case 'K':  // BININT1
          PushInt(*Take(1));
          break;
        case 'M':  // BININT2
          PushInt(static_cast<std::int64_t>(LittleEndian(Take(2), 2)));
          break;
        case 0x8a:  // LONG1
          PushLong(*Take(1));
          break;
        case 0x8b: {  // LONG4: a signed length
          const auto length =
              static_cast<std::int32_t>(static_cast<std::uint32_t>(LittleEndian(Take(4), 4)));
          if (length < 0) Fail(opcode_at_, Printf("LONG4 of negative length %d", length));
          PushLong(static_cast<std::uint64_t>(length));
          break;
        }
        case 'G':  // BINFLOAT: big-endian IEEE 754
          PushFloat(Take(8));
          break;
        case 0x8c:  // SHORT_BINUNICODE
          PushText(PickleKind::kString, *Take(1));
          break;
        case 'X':  // BINUNICODE
          PushText(PickleKind::kString, LittleEndian(Take(4), 4));
          break;
        case 0x8d:  // BINUNICODE8
          PushText(PickleKind::kString, LittleEndian(Take(8), 8));
          break;
        case 'C':  // SHORT_BINBYTES
          PushText(PickleKind::kBytes, *Take(1));
          break;
        case 'B':  // BINBYTES
          PushText(PickleKind::kBytes, LittleEndian(Take(4), 4));
          break;
        case 0x8e:  // BINBYTES8
        case 0x96:  // BYTEARRAY8: a bytearray reads as bytes
          PushText(PickleKind::kBytes, LittleEndian(Take(8), 8));
          break;
        case ']':  // EMPTY_LIST
          PushContainer(PickleKind::kList, NewContainer(PickleKind::kList));
          break;
        case '}':  // EMPTY_DICT
          PushContainer(PickleKind::kDict, NewContainer(PickleKind::kDict));
          break;
        case ')':  // EMPTY_TUPLE
          PushContainer(PickleKind::kTuple, NewContainer(PickleKind::kTuple));
          break;
        case 't': {  // TUPLE: the values since the last mark
          const std::size_t mark = PopMark();
          PushTuple(mark);
          break;
        }
        case 0x85:    // TUPLE1
        case 0x86:    // TUPLE2
        case 0x87: {  // TUPLE3
          const std::size_t n = op - 0x84u;
          if (Available() < n) Fail(opcode_at_, Printf("TUPLE%zu with fewer values to take", n));
          PushTuple(stack_.size() - n);
          break;
        }
        case 'a': {  // APPEND
          const PickleValue value = Pop();
          AddItems(Container(Top(), PickleKind::kList), &value, 1);
          break;
        }
        case 'e':  // APPENDS
          AddMarkedItems(PickleKind::kList);
          break;
        case 's': {  // SETITEM
          PickleValue pair[2];
          pair[1] = Pop();
          pair[0] = Pop();
          AddItems(Container(Top(), PickleKind::kDict), pair, 2);
          break;
        }
        case 'u':  // SETITEMS
          AddMarkedItems(PickleKind::kDict);
          break;
        case 0x94:  // MEMOIZE
          Put(memo_.size());
          break;
        case 'q':  // BINPUT
          Put(*Take(1));
          break;
        case 'r':  // LONG_BINPUT
          Put(LittleEndian(Take(4), 4));
          break;
        case 'h':  // BINGET
          Get(*Take(1));
          break;
        case 'j':  // LONG_BINGET
          Get(LittleEndian(Take(4), 4));
          break;
        default:
          Refuse(op);
      }
    }
  }

  [[noreturn]] void Fail(std::uint64_t at, const std::string& problem) const {
    throw PickleError(source_, at, problem);
  }

  [[noreturn]] void Refuse(unsigned char op) const {
    const char* name = OpcodeName(op);
    if (name == nullptr) Fail(opcode_at_, Printf("0x%02x is not a pickle opcode", op));
    Fail(opcode_at_, Printf("opcode %s (0x%02x) %s", name, op, WhyRefused(op).c_str()));
  }

  // The next n argument bytes of the current opcode.
  const unsigned char* Take(std::uint64_t n) {
    if (n > size_ - position_) {
      Fail(opcode_at_, Printf("%s needs %llu bytes, and the file has %llu left (it is cut short "
                              "or the length is false)",
                              OpcodeName(data_[opcode_at_]), static_cast<unsigned long long>(n),
                              static_cast<unsigned long long>(size_ - position_)));
    }
    const unsigned char* bytes = data_ + position_;
    position_ += n;
    return bytes;
  }

  void Count() {
    if (++values_ > limits_.max_values) {
      Fail(opcode_at_, Printf("more than %llu values (advisor's bound for one pickle)",
                              static_cast<unsigned long long>(limits_.max_values)));
    }
  }

  // Values pushed since the last mark: the only ones an opcode may take.
  std::size_t Available() const { return stack_.size() - (marks_.empty() ? 0 : marks_.back()); }

  void Push(const PickleValue& value) {
    Count();
    stack_.push_back(value);
  }

  PickleValue Pop() {
    if (Available() == 0)
      Fail(opcode_at_, Printf("%s with no value to take", OpcodeName(data_[opcode_at_])));
    const PickleValue value = stack_.back();
    stack_.pop_back();
    return value;
  }

  const PickleValue& Top() const {
    if (Available() == 0)
      Fail(opcode_at_, Printf("%s with no value to take", OpcodeName(data_[opcode_at_])));
    return stack_.back();
  }

  std::size_t PopMark() {
    if (marks_.empty())
      Fail(opcode_at_, Printf("%s without a MARK", OpcodeName(data_[opcode_at_])));
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    return mark;
  }

  void PushBool(bool value) {
    PickleValue v;
    v.kind = PickleKind::kBool;
    v.boolean = value;
    Push(v);
  }

  void PushInt(std::int64_t value) {
    PickleValue v;
    v.kind = PickleKind::kInt;
    v.integer = value;
    Push(v);
  }

  // LONG1/LONG4: little-endian two's complement, as few bytes as the value needs.
  void PushLong(std::uint64_t length) {
    const unsigned char* bytes = Take(length);
    if (length > 8) {
      Fail(opcode_at_, Printf("an integer of %llu bytes is wider than 64 bits",
                              static_cast<unsigned long long>(length)));
    }
    std::uint64_t value = LittleEndian(bytes, length);
    if (length > 0 && length < 8 && (bytes[length - 1] & 0x80) != 0) {
      value |= ~std::uint64_t{0} << (8 * length);  // sign-extend
    }
    PushInt(static_cast<std::int64_t>(value));
  }

  void PushFloat(const unsigned char* bytes) {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | bytes[i];
    PickleValue v;
    v.kind = PickleKind::kFloat;
    std::memcpy(&v.real, &bits, sizeof bits);
    Push(v);
  }

  void PushText(PickleKind kind, std::uint64_t length) {
    const unsigned char* bytes = Take(length);
    if (length > UINT32_MAX) Fail(opcode_at_, "a str or bytes of 4 GiB or more");
    PickleValue v;
    v.kind = kind;
    v.offset = static_cast<std::uint64_t>(bytes - data_);
    v.length = static_cast<std::uint32_t>(length);
    Push(v);
  }

  std::uint32_t NewContainer(PickleKind kind) {
    PickleDocument::Container container;
    container.kind = kind;
    document_.containers_.push_back(container);
    return static_cast<std::uint32_t>(document_.containers_.size() - 1);
  }

  void PushContainer(PickleKind kind, std::uint32_t index) {
    PickleValue v;
    v.kind = kind;
    v.container = index;
    Push(v);
  }

  // A tuple of the stack's values from `first` on, in their place.
  void PushTuple(std::size_t first) {
    const std::uint32_t tuple = NewContainer(PickleKind::kTuple);
    AddItems(tuple, stack_.data() + first, stack_.size() - first);
    stack_.resize(first);
    PushContainer(PickleKind::kTuple, tuple);
  }

  // The container `value` is, if it is of `kind` (tuples are immutable; dicts take pairs).
  std::uint32_t Container(const PickleValue& value, PickleKind kind) const {
    if (value.kind != kind) {
      Fail(opcode_at_, Printf("%s onto a %s, not a %s", OpcodeName(data_[opcode_at_]),
                              PickleKindName(value.kind), PickleKindName(kind)));
    }
    return value.container;
  }

  // APPENDS and SETITEMS: the values since the last mark go into the container below it.
  void AddMarkedItems(PickleKind kind) {
    const std::size_t mark = PopMark();
    if (mark <= (marks_.empty() ? 0 : marks_.back())) {
      Fail(opcode_at_,
           Printf("%s with no container below its MARK", OpcodeName(data_[opcode_at_])));
    }
    const std::size_t count = stack_.size() - mark;
    if (kind == PickleKind::kDict && count % 2 != 0) {
      Fail(opcode_at_, Printf("SETITEMS with %zu values: a key without its value", count));
    }
    AddItems(Container(stack_[mark - 1], kind), stack_.data() + mark, count);
    stack_.resize(mark);
  }

  void AddItems(std::uint32_t container, const PickleValue* items, std::size_t count) {
    if (count == 0) return;
    std::vector<PickleValue>& all = document_.items_;
    PickleDocument::Chunk chunk;
    chunk.begin = static_cast<std::uint32_t>(all.size());  // below 2^32: max_values bounds it
    chunk.count = static_cast<std::uint32_t>(count);
    all.insert(all.end(), items, items + count);
    const auto index = static_cast<std::uint32_t>(document_.chunks_.size());
    document_.chunks_.push_back(chunk);
    PickleDocument::Container& target = document_.containers_[container];
    if (target.last == PickleDocument::kNoChunk) {
      target.first = index;
    } else {
      document_.chunks_[target.last].next = index;
    }
    target.last = index;
    target.items += count;
  }

  // Python's pickler numbers its memo 0, 1, 2...: an index may replace an entry or add the next.
  void Put(std::uint64_t index) {
    const PickleValue& value = Top();
    if (index < memo_.size()) {
      memo_[index] = value;
      return;
    }
    if (index > memo_.size()) {
      Fail(opcode_at_, Printf("memo index %llu skips past the %zu entries so far",
                              static_cast<unsigned long long>(index), memo_.size()));
    }
    Count();
    memo_.push_back(value);
  }

  void Get(std::uint64_t index) {
    if (index >= memo_.size()) {
      Fail(opcode_at_,
           Printf("memo index %llu was never stored", static_cast<unsigned long long>(index)));
    }
    Push(memo_[index]);
  }

  void Stop() {
    if (!marks_.empty()) Fail(opcode_at_, "STOP inside an unfinished MARK");
    if (stack_.size() != 1) {
      Fail(opcode_at_, Printf("STOP with %zu values on the stack instead of one", stack_.size()));
    }
    if (position_ != size_) {
      Fail(position_, Printf("%llu bytes follow the pickle's STOP",
                             static_cast<unsigned long long>(size_ - position_)));
    }
    document_.root_ = stack_.back();
  }

  PickleDocument& document_;
  const std::string& source_;
  const PickleLimits& limits_;
  const unsigned char* data_;
  std::uint64_t size_;
  std::uint64_t position_ = 0;
  std::uint64_t opcode_at_ = 0;
  std::uint64_t values_ = 0;
  std::vector<PickleValue> stack_;
  std::vector<std::size_t> marks_;
  std::vector<PickleValue> memo_;
};

PickleDocument ParsePickle(std::string bytes, const std::string& source,
                           const PickleLimits& limits) {
  if (bytes.size() > limits.max_bytes) {
    throw PickleError(source, Printf("%zu bytes is too large (at most %llu)", bytes.size(),
                                     static_cast<unsigned long long>(limits.max_bytes)));
  }
  return PickleBuilder::Build(std::move(bytes), source, limits);
}

PickleDocument ReadPickleFile(const std::string& path, const PickleLimits& limits) {
  std::string bytes;
  try {
    bytes = ReadInputFile(path, limits.max_bytes);
  } catch (const InputFileError& error) {
    throw PickleError(path, error.problem());
  }
  return ParsePickle(std::move(bytes), path, limits);
}

}  // namespace advisor
