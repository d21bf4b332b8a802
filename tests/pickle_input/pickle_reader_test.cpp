// The plain-pickle reader: every kind Python writes for plain data, its memo and frames, and each
// refusal and bound, worded as the user sees it. The byte strings are Python 3.11's
// pickle.dumps of the expression above each.
#include "engine/pickle_input/pickle_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace advisor {
namespace {

std::string Bytes(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return bytes;
}

std::vector<PickleValue> Items(const PickleDocument& document, const PickleValue& sequence) {
  std::vector<PickleValue> items;
  document.ForEachItem(sequence, [&](const PickleValue& item) { items.push_back(item); });
  return items;
}

// The error's text, or "" where the pickle was read.
std::string ErrorOf(const std::string& bytes, const PickleLimits& limits = {}) {
  try {
    ParsePickle(bytes, "p.pickle", limits);
  } catch (const PickleError& error) {
    return error.what();
  }
  return "";
}

// {'ints': [0, 255, 256, 65535, 65536, -1, -2**31, 2**31, 2**40, -2**63, 2**63-1],
//  'float': 1.5, 't': True, 'f': False, 'none': None, 'text': 'hé', 'bytes': b'\x00\x01',
//  'tuples': [(), (7,), (1, 2), (1, 2, 3), (1, 2, 3, 4)]}, protocol 4
const char kPlainValues[] =
    "800495b4000000000000007d94288c04696e7473945d94284b004bff4d00014dffff4a000001004affffffff4a00"
    "0000808a0500000080008a060000000000018a0800000000000000808a08ffffffffffffff7f658c05666c6f6174"
    "94473ff80000000000008c017494888c016694898c046e6f6e65944e8c0474657874948c0368c3a9948c05627974"
    "65739443020001948c067475706c6573945d9428294b0785944b014b0286944b014b024b038794284b014b024b03"
    "4b04749465752e";

TEST(PickleReader, ReadsEveryPlainKindPythonWrites) {
  const PickleDocument document = ParsePickle(Bytes(kPlainValues), "p.pickle");
  const PickleValue& root = document.root();
  ASSERT_EQ(root.kind, PickleKind::kDict);
  EXPECT_EQ(document.Size(root), 8u);

  std::vector<std::int64_t> ints;
  for (const PickleValue& item : Items(document, *document.Find(root, "ints"))) {
    ASSERT_EQ(item.kind, PickleKind::kInt);
    ints.push_back(item.integer);
  }
  EXPECT_EQ(ints, (std::vector<std::int64_t>{0, 255, 256, 65535, 65536, -1, -2147483648LL,
                                             2147483648LL, 1LL << 40, INT64_MIN, INT64_MAX}));
  EXPECT_EQ(document.Find(root, "float")->real, 1.5);
  EXPECT_EQ(document.Find(root, "t")->kind, PickleKind::kBool);
  EXPECT_TRUE(document.Find(root, "t")->boolean);
  EXPECT_FALSE(document.Find(root, "f")->boolean);
  EXPECT_EQ(document.Find(root, "none")->kind, PickleKind::kNone);
  EXPECT_EQ(document.Text(*document.Find(root, "text")), "h\xc3\xa9");
  EXPECT_EQ(document.Find(root, "bytes")->kind, PickleKind::kBytes);
  EXPECT_EQ(document.Text(*document.Find(root, "bytes")), std::string("\x00\x01", 2));
  std::vector<std::uint64_t> tuple_sizes;
  for (const PickleValue& tuple : Items(document, *document.Find(root, "tuples"))) {
    ASSERT_EQ(tuple.kind, PickleKind::kTuple);
    tuple_sizes.push_back(document.Size(tuple));
  }
  EXPECT_EQ(tuple_sizes, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(document.Find(root, "missing"), nullptr);
}

TEST(PickleReader, SharedValuesThroughTheMemoAreOneContainer) {
  // s = ['shared']; [s, s], protocol 2 (BINPUT, BINGET)
  const PickleDocument document =
      ParsePickle(Bytes("80025d7100285d710158060000007368617265647102616801652e"), "p.pickle");
  const std::vector<PickleValue> items = Items(document, document.root());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, PickleKind::kList);
  EXPECT_EQ(items[0].container, items[1].container);
  EXPECT_EQ(document.Text(Items(document, items[1]).at(0)), "shared");
}

TEST(PickleReader, AListThatHoldsItselfReadsWithoutEndlessWork) {
  // l = []; l.append(l); l.append(l); l
  const PickleDocument document =
      ParsePickle(Bytes("80049509000000000000005d942868006800652e"), "p.pickle");
  const std::vector<PickleValue> items = Items(document, document.root());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].container, document.root().container);
}

TEST(PickleReader, Protocol5Frames) {
  // {'x': [1, 2]}, protocol 5
  const PickleDocument document =
      ParsePickle(Bytes("80059510000000000000007d948c0178945d94284b014b0265732e"), "p.pickle");
  EXPECT_EQ(document.Size(*document.Find(document.root(), "x")), 2u);
}

TEST(PickleReader, AnOpcodeThatNamesAFunctionIsRefusedByName) {
  // pickle.dumps(RunsCode(), protocol=2), RunsCode.__reduce__ giving (os.system, ("echo ran",))
  const std::string global =
      Bytes("8002") + "cposix\nsystem\nq\x00X\x08\x00\x00\x00echo ranq\x01\x85q\x02Rq\x03.";
  EXPECT_EQ(ErrorOf(global),
            "p.pickle: byte 2: opcode GLOBAL (0x63) names a class or a function, and a pickle "
            "that does can run code when loaded: advisor reads only plain containers, numbers "
            "and strings");
  // Protocol 4 names it with STACK_GLOBAL after two strings.
  const std::string stack_global = Bytes("8004") + "\x8c\x05posix\x94\x8c\x06system\x94\x93\x94.";
  EXPECT_NE(ErrorOf(stack_global).find("byte 19: opcode STACK_GLOBAL (0x93) names a class"),
            std::string::npos)
      << ErrorOf(stack_global);
  for (const char op : {'R', 'b', 'i', 'o', '\x81', '\x92', '\x82', 'P', 'Q'}) {
    EXPECT_NE(ErrorOf(Bytes("8004") + "N" + op).find("names a class or a function"),
              std::string::npos)
        << int(op);
  }
}

TEST(PickleReader, SetsBuffersAndOldProtocolsAreRefused) {
  EXPECT_EQ(ErrorOf(Bytes("80048f94") + "."),
            "p.pickle: byte 2: opcode EMPTY_SET (0x8f) builds a set, which no memory snapshot "
            "holds");
  EXPECT_NE(ErrorOf(Bytes("800597") + ".").find("NEXT_BUFFER (0x97) refers to an out-of-band"),
            std::string::npos);
  // [1, 2], protocol 0
  EXPECT_EQ(ErrorOf("(lp0\nI1\naI2\na."),
            "p.pickle: byte 1: opcode LIST (0x6c) is protocol 0 or 1's (advisor reads protocols 2 "
            "to 5, as Python writes them)");
  EXPECT_EQ(ErrorOf(Bytes("8001") + "N."),
            "p.pickle: byte 0: pickle protocol 1: advisor reads protocols 2 to 5");
  EXPECT_EQ(ErrorOf(Bytes("8004ff")), "p.pickle: byte 2: 0xff is not a pickle opcode");
}

TEST(PickleReader, CutShortAndFalseLengthsAreOneLine) {
  const std::string whole = Bytes(kPlainValues);
  EXPECT_EQ(ErrorOf(whole.substr(0, whole.size() / 2)),
            "p.pickle: byte 2: a frame of 180 bytes runs past the end of the file (84 bytes "
            "left): the file is cut short");
  // Protocol 2 has no frames: the opcodes run out.
  const std::string shared = Bytes("80025d7100285d710158060000007368617265647102616801652e");
  EXPECT_EQ(ErrorOf(shared.substr(0, shared.size() - 1)),
            "p.pickle: byte 26: the pickle ends before its STOP opcode (the file is cut short)");
  EXPECT_EQ(ErrorOf(shared.substr(0, 16)),
            "p.pickle: byte 9: BINUNICODE needs 6 bytes, and the file has 2 left (it is cut "
            "short or the length is false)");
  // BINUNICODE8 of 2^62 bytes, three present.
  EXPECT_EQ(ErrorOf(Bytes("80048d000000000000004061626300")),
            "p.pickle: byte 2: BINUNICODE8 needs 4611686018427387904 bytes, and the file has 4 "
            "left (it is cut short or the length is false)");
  EXPECT_EQ(ErrorOf(Bytes("800495ffff0000000000004e2e")),
            "p.pickle: byte 2: a frame of 65535 bytes runs past the end of the file (2 bytes "
            "left): the file is cut short");
  EXPECT_EQ(ErrorOf(Bytes("80044e2e00")), "p.pickle: byte 4: 1 bytes follow the pickle's STOP");
  EXPECT_EQ(ErrorOf(Bytes("80048a09000000000000000001") + "."),
            "p.pickle: byte 2: an integer of 9 bytes is wider than 64 bits");
}

TEST(PickleReader, StackMistakesAreRefused) {
  EXPECT_EQ(ErrorOf(Bytes("8004") + ")N" + "a."),
            "p.pickle: byte 4: APPEND onto a tuple, not a list");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "]" + "(NN" + "u."),
            "p.pickle: byte 6: SETITEMS onto a list, not a dict");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "}(N" + "u."),
            "p.pickle: byte 5: SETITEMS with 1 values: a key without its value");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "(Ne."),
            "p.pickle: byte 4: APPENDS with no container below its MARK");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "N(a."), "p.pickle: byte 4: APPEND with no value to take");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "Nh\x05."), "p.pickle: byte 3: memo index 5 was never stored");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "Nq\x03."),
            "p.pickle: byte 3: memo index 3 skips past the 0 entries so far");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "NN."),
            "p.pickle: byte 4: STOP with 2 values on the stack instead of one");
  EXPECT_EQ(ErrorOf(Bytes("8004") + "(N."), "p.pickle: byte 4: STOP inside an unfinished MARK");
}

TEST(PickleReader, NestingAndSizeBoundsHold) {
  std::string deep = Bytes("8004");
  for (int i = 0; i < 65; ++i) deep += "](";
  EXPECT_EQ(ErrorOf(deep), "p.pickle: byte 131: containers nest deeper than 64 levels");

  PickleLimits small;
  small.max_values = 3;
  EXPECT_EQ(ErrorOf(Bytes("8004") + "]NNN(e.", small),
            "p.pickle: byte 5: more than 3 values (advisor's bound for one pickle)");
  small.max_bytes = 4;
  EXPECT_EQ(ErrorOf(Bytes("80044e2e00"), small), "p.pickle: 5 bytes is too large (at most 4)");
}

TEST(PickleReader, AFileThatIsNoneIsOneLine) {
  try {
    ReadPickleFile("/nonexistent/snapshot.pickle");
    FAIL() << "read a missing file";
  } catch (const PickleError& error) {
    EXPECT_EQ(std::string(error.what()), "/nonexistent/snapshot.pickle: no such file");
  }
}

}  // namespace
}  // namespace advisor
