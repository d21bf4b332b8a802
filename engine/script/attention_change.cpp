#include "engine/script/attention_change.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace advisor {
namespace {

// A logical line of Python: physical lines joined where brackets or a backslash continue them.
struct Statement {
  int first_line = 0;
  int last_line = 0;
  std::string text;  // comments out, trimmed, its lines joined by one space
};

std::string Trim(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// `line` without its comment; `depth` carried from line to line: the brackets left open.
std::string CodeOf(const std::string& line, int& depth) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      depth = std::max(depth - 1, 0);
    }
  }
  return line;
}

std::vector<Statement> Statements(const SourceBlock& block) {
  std::vector<Statement> statements;
  int depth = 0;
  bool continued = false;
  for (std::size_t i = 0; i < block.lines.size(); ++i) {
    const int line = block.first_line + static_cast<int>(i);
    const bool open = depth > 0 || continued;
    std::string code = Trim(CodeOf(block.lines[i], depth));
    continued = !code.empty() && code.back() == '\\';
    if (continued) code = Trim(code.substr(0, code.size() - 1));
    if (code.empty() && !open) continue;
    if (!open || statements.empty()) statements.push_back({line, line, ""});
    Statement& statement = statements.back();
    statement.last_line = line;
    if (!code.empty()) statement.text += (statement.text.empty() ? "" : " ") + code;
  }
  return statements;
}

constexpr std::size_t kLongestStatement = 1000;  // characters

// Pieces of the patterns below. An atom is a name with attributes and one subscript
// (`self.q`, `qkv[0]`); a call's arguments nest two brackets deep; an argument has no comma
// outside brackets.
const std::string kAtom = R"([A-Za-z_][\w.]*(?:\[[^\]]*\])?)";
const std::string kParens = R"(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))";
const std::string kArgument = R"((?:[^,()]|)" + kParens + ")+";
const std::string kFunctional = R"((?:torch\.nn\.functional|nn\.functional|F|torch))";
// A factor on the scores: `self.scale`, `math.sqrt(d)`, `(d ** -0.5)`, `8.0`, `d ** -0.5`.
const std::regex kFactor("^(?:(?:" + kAtom + ")?" + kParens + "|" + kAtom +
                         R"(|[\d.]+(?:e-?\d+)?)(?:\s*\*\*\s*-?[\d.]+)?$)");
// A fill that takes a position out of the softmax.
const std::regex kNegativeInfinity(
    R"(^(?:float\(\s*["']-inf["']\s*\)|-\s*float\(\s*["']inf["']\s*\)|-\s*(?:math|torch|np|numpy)\.inf|-1e\d+|-1\.0e\d+|-10+(?:\.0*)?|torch\.finfo\([^()]*\)\.min|-\s*torch\.finfo\([^()]*\)\.max)$)");

std::string Escaped(const std::string& text) {
  static const std::regex kSpecial(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, kSpecial, R"(\$&)");
}

bool Mentions(const std::string& text, const std::string& name) {
  return std::regex_search(text, std::regex("\\b" + Escaped(name) + "\\b"));
}

std::string WithoutSpaces(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  return text;
}

struct Product {
  std::string q, k;
  std::string scale;  // "" where the product has no factor
};

// `q @ k.transpose(-2, -1)`, `torch.matmul(q, k.mT)`, with a factor after (`* s`, `/ s`).
std::optional<Product> ParseProduct(const std::string& expression) {
  const std::string q = "(" + kAtom + R"(|\([^()]*\)))";
  const std::string kt = "(" + kAtom + R"()\.(?:transpose\(\s*(-[12])\s*,\s*(-[12])\s*\)|(mT)))";
  const std::string factor = R"((?:\s*([*/])\s*(.+))?$)";
  static const std::regex kAt("^\\(?\\s*" + q + R"(\s*@\s*)" + kt + R"(\s*\)?)" + factor);
  static const std::regex kMatmul(R"(^\(?\s*torch\.matmul\(\s*)" + q + R"(\s*,\s*)" + kt +
                                  R"(\s*\)\s*\)?)" + factor);
  std::smatch match;
  if (!std::regex_match(expression, match, kAt) && !std::regex_match(expression, match, kMatmul)) {
    return std::nullopt;
  }
  if (!match[5].matched && match[3] == match[4]) return std::nullopt;  // transpose(-1, -1)
  Product product{match[1], match[2], ""};
  if (match[6].matched) {
    const std::string by = Trim(match[7]);
    if (!std::regex_match(by, kFactor)) return std::nullopt;  // a bias added too: not a scale
    product.scale = match[6] == "*" ? by : "1 / " + by;
  }
  return product;
}

// The mask SDPA takes for `masked_fill(condition, -inf)`: True where a position may attend.
std::string KeptWhereNot(const std::string& condition) {
  static const std::regex kEqualsZero(R"(^(.+?)\s*==\s*0$)");
  static const std::regex kNot(R"(^~\s*()" + kAtom + ")$");
  std::smatch match;
  if (std::regex_match(condition, match, kEqualsZero)) return match[1].str() + " != 0";
  if (std::regex_match(condition, match, kNot)) return match[1];
  return std::regex_match(condition, std::regex("^" + kAtom + "$")) ? "~" + condition
                                                                    : "~(" + condition + ")";
}

// What the attention's lines amount to, read statement by statement.
struct Attention {
  std::string q, k, v;
  std::string scale;  // "" until a factor is seen
  std::string mask;
  int mask_line = 0;
  std::string dropout;
  std::set<std::size_t> replaced;  // the statements the call replaces
  std::size_t first = 0, last = 0;
  std::string final_text;  // the last statement, with the call in place of `weights @ v`
  std::string cannot_keep;
};

void CannotKeep(Attention& attention, const std::string& what) {
  if (attention.cannot_keep.empty()) attention.cannot_keep = what;
}

std::string Quoted(const Statement& statement) {
  return "line " + std::to_string(statement.first_line) + " (`" + statement.text + "`)";
}

// A statement after the product that changes the scores `s`: a factor, a mask filled in, a mask
// added. False for anything else.
bool ReadScoresUpdate(const Statement& statement, const std::string& s, Attention& attention) {
  const std::string name = Escaped(s);
  const std::regex scaled("^" + name + R"(\s*=\s*)" + name + R"(\s*([*/])\s*(.+)$)");
  const std::regex scaled_in_place("^" + name + R"(\s*([*/])=\s*(.+)$)");
  const std::regex filled("^(?:" + name + R"(\s*=\s*)" + name + R"(\.masked_fill|)" + name +
                          R"(\.masked_fill_)\(\s*()" + kArgument + R"()\s*,\s*()" + kArgument +
                          R"()\s*\)$)");
  const std::regex added("^" + name + R"(\s*(?:=\s*)" + name + R"(\s*\+|\+=)\s*(.+)$)");
  const std::regex added_before("^" + name + R"(\s*=\s*(.+?)\s*\+\s*)" + name + "$");
  std::smatch match;
  const std::string& text = statement.text;
  if (std::regex_match(text, match, scaled) || std::regex_match(text, match, scaled_in_place)) {
    const std::string by = Trim(match[2]);
    if (!std::regex_match(by, kFactor)) return false;
    const std::string factor = match[1] == "*" ? by : "1 / " + by;
    attention.scale = attention.scale.empty() ? factor : attention.scale + " * " + factor;
    return true;
  }
  std::string mask;
  if (std::regex_match(text, match, filled)) {
    if (!std::regex_match(Trim(match[2]), kNegativeInfinity)) {
      CannotKeep(attention, Quoted(statement) + " fills the scores with " + Trim(match[2]) +
                                ", not -inf: SDPA's mask can only take a position out");
      return true;
    }
    mask = KeptWhereNot(Trim(match[1]));
  } else if (std::regex_match(text, match, added) || std::regex_match(text, match, added_before)) {
    mask = Trim(match[1]);  // a float mask: SDPA adds it to the scores as they did
  } else {
    return false;
  }
  if (!attention.mask.empty()) {
    CannotKeep(attention, "two masks (lines " + std::to_string(attention.mask_line) + " and " +
                              std::to_string(statement.first_line) +
                              "): merge them into one attn_mask by hand");
  }
  attention.mask = mask;
  attention.mask_line = statement.first_line;
  return true;
}

// `w = self.attn_drop(w)`, `w = F.dropout(w, p=..., training=...)`: SDPA's dropout_p.
std::optional<std::string> DropoutOf(const std::string& text, const std::string& w) {
  const std::string name = Escaped(w);
  const std::regex module("^" + name + R"(\s*=\s*(self\.\w*[Dd]rop\w*)\(\s*)" + name + R"(\s*\)$)");
  const std::regex function("^" + name + R"(\s*=\s*)" + kFunctional + R"(\.dropout\(\s*)" + name +
                            R"(\s*,\s*(.*)\)$)");
  std::smatch match;
  if (std::regex_match(text, match, module)) return match[1].str() + ".p if self.training else 0.0";
  if (!std::regex_match(text, match, function)) return std::nullopt;
  std::string p, training;
  std::size_t position = 0;
  static const std::regex kArgumentRe(R"(\s*(?:(\w+)\s*=\s*)?()" + kArgument + R"()\s*(?:,|$))");
  const std::string arguments = match[1];
  for (std::sregex_iterator it(arguments.begin(), arguments.end(), kArgumentRe), end; it != end;
       ++it, ++position) {
    const std::string key = (*it)[1], value = Trim((*it)[2]);
    if (key == "p" || (key.empty() && position == 0)) p = value;
    if (key == "training" || key == "train" || (key.empty() && position == 1)) training = value;
  }
  if (p.empty()) p = "0.5";  // F.dropout's default
  return training.empty() ? p : p + " if " + training + " else 0.0";
}

// The product of the weights with v in `text`, where `weights` is a name or the softmax's call.
std::optional<std::smatch> ProductWithV(const std::string& text, const std::string& weights) {
  const std::regex at(Escaped(weights) + R"(\s*@\s*()" + kAtom + ")");
  const std::regex matmul(R"(torch\.matmul\(\s*)" + Escaped(weights) + R"(\s*,\s*()" + kAtom +
                          R"()\s*\))");
  std::smatch match;
  if (std::regex_search(text, match, at) || std::regex_search(text, match, matmul)) return match;
  return std::nullopt;
}

struct Softmax {
  std::string call;    // as written
  std::string scores;  // what it takes
};

std::optional<Softmax> FindSoftmax(const std::string& text, std::string& problem) {
  const std::string arguments = R"(((?:[^()]|\([^()]*\))*))";
  static const std::regex kMethod("(" + kAtom + "|" + kParens + R"()\.softmax\()" + arguments +
                                  R"(\))");
  static const std::regex kFunction(kFunctional + R"(\.softmax\(\s*()" + kArgument + R"()\s*,)" +
                                    arguments + R"(\))");
  std::smatch match;
  // The function first: `F.softmax(s, -1)` is a method call on `F` too.
  if (!std::regex_search(text, match, kFunction) && !std::regex_search(text, match, kMethod)) {
    return std::nullopt;
  }
  const std::string dim = WithoutSpaces(match[2]);
  if (dim != "-1" && dim != "dim=-1") {
    problem = "the softmax's arguments (`" + Trim(match[2]) +
              "`): SDPA's softmax is over the last dimension, in q's dtype";
  }
  std::string scores = Trim(match[1]);
  while (scores.size() > 2 && scores.front() == '(' && scores.back() == ')' &&
         std::regex_match(scores, std::regex("^" + kParens + "$"))) {
    scores = Trim(scores.substr(1, scores.size() - 2));
  }
  return Softmax{match[0], scores};
}

// A block header among the lines the call replaces (`if mask is not None:`) would be left without
// its body. `if M is not None:` around adding M goes with it: SDPA takes attn_mask=None as no
// mask. Any other header is said, not guessed at.
void KeepBlocksWhole(const std::vector<Statement>& statements, Attention& attention) {
  static const std::regex kGuard(R"(^if\s+([A-Za-z_][\w.]*)\s+is\s+not\s+None\s*:$)");
  for (std::size_t i = attention.first; i <= attention.last; ++i) {
    const std::string& text = statements[i].text;
    if (attention.replaced.count(i) != 0 || text.empty() || text.back() != ':') continue;
    std::smatch match;
    if (std::regex_match(text, match, kGuard) && i + 1 <= attention.last &&
        attention.replaced.count(i + 1) != 0 &&
        statements[i + 1].first_line == attention.mask_line && attention.mask == match[1].str()) {
      attention.replaced.insert(i);
      continue;
    }
    CannotKeep(attention, Quoted(statements[i]) + " runs part of the attention under a condition");
  }
}

// The statements around the softmax read as attention; nullopt where they are not that shape.
std::optional<Attention> ReadAttention(const std::vector<Statement>& statements,
                                       std::size_t softmax_at) {
  std::string problem;
  const std::optional<Softmax> softmax = FindSoftmax(statements[softmax_at].text, problem);
  if (!softmax) return std::nullopt;
  Attention attention;
  attention.cannot_keep = problem;
  attention.first = softmax_at;
  attention.replaced.insert(softmax_at);

  // Back to where the scores are made: the product itself, or the name given to it.
  static const std::regex kName(R"(^[A-Za-z_]\w*$)");
  std::optional<Product> product = ParseProduct(softmax->scores);
  if (!product) {
    if (!std::regex_match(softmax->scores, kName)) return std::nullopt;
    const std::string& s = softmax->scores;
    const std::regex defined("^" + Escaped(s) + R"(\s*=\s*(.+)$)");
    std::size_t at = softmax_at;
    std::smatch match;
    while (at > 0 && !product) {
      --at;
      if (std::regex_match(statements[at].text, match, defined)) product = ParseProduct(match[1]);
    }
    if (!product) return std::nullopt;
    attention.first = at;
    for (std::size_t i = at; i < softmax_at; ++i) {
      if (i == at || ReadScoresUpdate(statements[i], s, attention)) {
        attention.replaced.insert(i);
      } else if (Mentions(statements[i].text, s)) {
        CannotKeep(attention, Quoted(statements[i]) + " does with the scores what SDPA cannot");
      }
    }
  }
  attention.q = product->q;
  attention.k = product->k;
  if (!product->scale.empty()) {
    attention.scale =
        attention.scale.empty() ? product->scale : product->scale + " * " + attention.scale;
  }

  // On to the product with v: straight after the softmax, or through the weights' name.
  std::string weights = softmax->call;
  const std::regex named(R"(^([A-Za-z_]\w*)\s*=\s*)" + Escaped(softmax->call) + "$");
  std::smatch match;
  if (std::regex_match(statements[softmax_at].text, match, named)) weights = match[1];
  std::size_t at = softmax_at;
  std::optional<std::smatch> with_v = ProductWithV(statements[at].text, weights);
  while (!with_v && weights != softmax->call && ++at < statements.size()) {
    with_v = ProductWithV(statements[at].text, weights);
    if (with_v) break;  // the last statement the call replaces
    if (auto dropout = DropoutOf(statements[at].text, weights)) {
      attention.dropout = *dropout;
      attention.replaced.insert(at);
    } else if (Mentions(statements[at].text, weights)) {
      CannotKeep(attention,
                 Quoted(statements[at]) + " does with the attention weights what SDPA cannot");
    }
  }
  if (!with_v) return std::nullopt;
  attention.last = at;
  attention.replaced.insert(at);
  KeepBlocksWhole(statements, attention);
  attention.v = (*with_v)[1];
  attention.final_text = with_v->prefix().str() + "\x01" + with_v->suffix().str();
  for (std::size_t i = at; i < statements.size(); ++i) {
    const std::string& text = i == at ? attention.final_text : statements[i].text;
    if (weights != softmax->call && Mentions(text, weights)) {
      CannotKeep(attention,
                 Quoted(statements[i]) + " uses the attention weights, which SDPA does not return");
    }
  }
  return attention;
}

std::string Where(const SourceLocation& at) { return at.file + ":" + std::to_string(at.line); }

std::string InWords(const SourceLocation& at) {
  return "compute the attention at " + Where(at) +
         " with torch.nn.functional.scaled_dot_product_attention(q, k, v) instead of "
         "softmax(q @ k.transpose(-2, -1) * scale) @ v, passing your mask as attn_mask (a bool "
         "mask is True where a position may attend; a float mask is added to the scores), your "
         "factor on the scores as scale (SDPA's default is 1/sqrt(q.size(-1))) and your dropout "
         "as dropout_p";
}

}  // namespace

CodeChange SdpaChange(const SourceLocation& at, const SourceBlock* function) {
  const SourceBlock line{at.line, {at.text}};
  const std::vector<Statement> statements = Statements(function ? *function : line);
  CodeChange change;
  change.advice = InWords(at);
  // std::regex matches by recursion, as deep as the text is long: a long literal would exhaust
  // the stack, and attention is not written on such lines.
  if (std::any_of(statements.begin(), statements.end(),
                  [](const Statement& s) { return s.text.size() > kLongestStatement; })) {
    return change;
  }
  // The finding's line where it holds the softmax, else the function's first softmax.
  std::optional<std::size_t> softmax_at;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    if (statements[i].text.find("softmax(") == std::string::npos) continue;
    if (!softmax_at ||
        (statements[i].first_line <= at.line && at.line <= statements[i].last_line)) {
      softmax_at = i;
    }
  }
  const std::optional<Attention> attention =
      softmax_at ? ReadAttention(statements, *softmax_at) : std::nullopt;
  if (!attention) return change;
  if (!attention->cannot_keep.empty()) {
    change.cannot_keep = attention->cannot_keep;
    change.advice += ". advisor wrote no change to paste: " + change.cannot_keep;
    return change;
  }
  const bool short_name = std::any_of(statements.begin(), statements.end(), [](const Statement& s) {
    return std::regex_search(s.text, std::regex(R"(\bF\.)"));
  });
  std::string call = std::string(short_name ? "F" : "torch.nn.functional") +
                     ".scaled_dot_product_attention(" + attention->q + ", " + attention->k + ", " +
                     attention->v;
  std::vector<std::string> kept;
  if (!attention->mask.empty()) {
    call += ", attn_mask=" + attention->mask;
    kept.push_back("the mask as attn_mask");
  }
  if (!attention->dropout.empty()) {
    call += ", dropout_p=" + attention->dropout;
    kept.push_back("the dropout as dropout_p");
  }
  call += ", scale=" + (attention->scale.empty() ? std::string("1.0") : attention->scale) + ")";
  kept.push_back(attention->scale.empty() ? "no factor on the scores as scale=1.0"
                                          : "the factor on the scores as scale");

  const Statement& first = statements[attention->first];
  const Statement& last = statements[attention->last];
  change.first_line = first.first_line;
  const std::vector<std::string>& lines = function ? function->lines : line.lines;
  const int block_first = function ? function->first_line : line.first_line;
  for (int number = first.first_line; number <= last.last_line; ++number) {
    change.before.push_back(Trim(lines[static_cast<std::size_t>(number - block_first)]));
  }
  for (std::size_t i = attention->first; i <= attention->last; ++i) {
    if (attention->replaced.count(i) == 0) change.after.push_back(statements[i].text);
  }
  std::string final_text = attention->final_text;
  final_text.replace(final_text.find('\x01'), 1, call);
  change.after.push_back(final_text);
  std::string keeps;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    keeps += (i == 0 ? "" : i + 1 == kept.size() ? " and " : ", ") + kept[i];
  }
  change.advice = "compute the attention at " + Where(at) +
                  " with scaled_dot_product_attention in one call, which keeps " + keeps +
                  ": replace lines " + std::to_string(first.first_line) + "-" +
                  std::to_string(last.last_line) + " (scale= needs torch 2.1 or newer)";
  return change;
}

}  // namespace advisor
