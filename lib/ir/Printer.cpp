//===- Printer.cpp - The stable text form of Tile IR ----------------------===//
//
// The text form (the parser in Parser.cpp reads exactly this back, and
// print -> parse -> print is the identity):
//
//   tt.func @kernel(%arg0: !tt.ptr<f32> {divisibility = 16}, %arg1: i32) -> (f32) attributes {kernel = true} {
//     %0 = tt.get_program_id {axis = 0} : i32
//     %1:2 = scf.for %c0, %arg1, %c1, %x, %y : f32, f32 {
//     ^bb0(%arg2: i32, %arg3: f32, %arg4: f32):
//       scf.yield %arg3, %arg4
//     }
//     tt.return %1#0
//   }
//
// Every op except tt.func prints generically:
//   [results =] mnemonic [operands] [{attrs}] [: result types] [regions] [loc]
// Operand types are not printed; they come from the operands' definitions.
//
// Value names are canonical and numbered per function in print order:
//   * op results are %0, %1, ... (one number per op); an op with several
//     results defines %N:K and its results are used as %N#0 ... %N#(K-1);
//   * block arguments are %argN: the function's parameters are %arg0.. and
//     the arguments of nested region blocks continue the same counter.
// A region prints as `{ ... }`; its first block's `^bb0(args):` header is
// printed only when the block has arguments or no ops; later blocks always
// print `^bbK`. A region with no block prints `{}`; a tt.func without a
// body prints no region at all.
//
// tt.func prints sym_name as `@name`, the parameters from its entry block,
// attributes `argN.key` inline after parameter N as `{key = value}`,
// `result_types` as `-> (types)` and the remaining attributes as
// `attributes {...}`.
//
// Attribute values: the variant decides the syntax: `true`/`false`, `42`,
// doubles always with `.` or an exponent (shortest text that round-trips;
// `inf`, `-inf`, `nan`), `"string"` with C escapes, `[1, 2]`, `type<f32>`,
// `types<f32, i32>`, and `unit` for an empty attribute. Keys that are not
// identifiers ([A-Za-z_][A-Za-z0-9_.$]*) are quoted.
//
// Locations print as `loc("file":line:col)` after the op (after its regions)
// when PrintOptions::locations is set and the location is known.
//
//===----------------------------------------------------------------------===//

#include <charconv>
#include <cmath>
#include <unordered_map>

#include "PrinterDetail.h"
#include "tessera/ir/IR.h"

namespace tessera::ir {

//===----------------------------------------------------------------------===//
// Atoms: numbers, strings, attributes
//===----------------------------------------------------------------------===//

void detail::appendInt(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

void detail::appendDouble(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "nan";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-inf" : "inf";
    return;
  }
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string_view text(buf, end - buf);
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void detail::appendQuoted(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool detail::isIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!head(s[0])) return false;
  for (char c : s)
    if (!head(c) && !(c >= '0' && c <= '9') && c != '.' && c != '$') return false;
  return true;
}

void detail::appendKey(std::string& out, std::string_view key) {
  if (isIdentifier(key))
    out += key;
  else
    appendQuoted(out, key);
}

void detail::appendAttribute(std::string& out, const Attribute& attr) {
  struct Visitor {
    std::string& out;
    void operator()(std::monostate) { out += "unit"; }
    void operator()(bool b) { out += b ? "true" : "false"; }
    void operator()(int64_t i) { appendInt(out, i); }
    void operator()(double d) { appendDouble(out, d); }
    void operator()(const std::string& s) { appendQuoted(out, s); }
    void operator()(const std::vector<int64_t>& v) {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        appendInt(out, v[i]);
      }
      out += ']';
    }
    void operator()(Type t) {
      out += "type<";
      out += t.str();
      out += '>';
    }
    void operator()(const std::vector<Type>& v) {
      out += "types<";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        out += v[i].str();
      }
      out += '>';
    }
  };
  std::visit(Visitor{out}, attr);
}

std::string attributeToString(const Attribute& attr) {
  std::string out;
  detail::appendAttribute(out, attr);
  return out;
}

//===----------------------------------------------------------------------===//
// Value numbering
//===----------------------------------------------------------------------===//

namespace {

struct ValueName {
  uint32_t number = 0;
  uint32_t resultIndex = 0;
  bool isArg = false;
  bool multi = false;  ///< result of an op with several results
};

class Printer {
 public:
  Printer(std::string& out, const PrintOptions& options) : out_(out), options_(options) {}

  /// Numbers the values of the function (or detached op tree) rooted at `root`.
  void number(Operation* root);
  void printOp(Operation* op, int indent);

 private:
  void numberOp(Operation* op);
  void numberBlockArgs(const Block& block);
  void printFunc(Operation* op, int indent);
  void printRegion(Region& region, int indent);
  void printBlockHeader(const Block& block, unsigned index);
  void printValue(Value v);
  void printAttrDict(const AttrMap& attrs, bool (*skip)(std::string_view, unsigned), unsigned numArgs);
  void printLoc(Location loc);
  void indent(int n) { out_.append(static_cast<size_t>(n), ' '); }

  std::string& out_;
  const PrintOptions& options_;
  std::unordered_map<const ValueImpl*, ValueName> names_;
  uint32_t nextArg_ = 0;
  uint32_t nextResult_ = 0;
};

void Printer::number(Operation* root) {
  if (root->is(OpCode::Func) && root->numRegions() == 1 && !root->region(0).empty()) {
    // The parameters come first, then the body in print order.
    numberBlockArgs(root->region(0).front());
    for (Operation* op = root->region(0).front().front(); op; op = op->nextOp()) numberOp(op);
    for (unsigned b = 1; b < root->region(0).numBlocks(); ++b) {
      numberBlockArgs(*root->region(0).block(b));
      for (Operation* op = root->region(0).block(b)->front(); op; op = op->nextOp()) numberOp(op);
    }
    return;
  }
  numberOp(root);
}

void Printer::numberBlockArgs(const Block& block) {
  for (unsigned i = 0; i < block.numArguments(); ++i)
    names_[block.argument(i).impl()] = ValueName{nextArg_++, 0, true, false};
}

void Printer::numberOp(Operation* op) {
  if (op->numResults() > 0) {
    uint32_t n = nextResult_++;
    bool multi = op->numResults() > 1;
    for (unsigned i = 0; i < op->numResults(); ++i)
      names_[op->result(i).impl()] = ValueName{n, i, false, multi};
  }
  for (unsigned r = 0; r < op->numRegions(); ++r)
    for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) {
      Block* block = op->region(r).block(b);
      numberBlockArgs(*block);
      for (Operation* child = block->front(); child; child = child->nextOp()) numberOp(child);
    }
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

void Printer::printValue(Value v) {
  if (!v) {
    out_ += "<<null>>";
    return;
  }
  auto it = names_.find(v.impl());
  if (it == names_.end()) {
    out_ += "%<<unknown>>";
    return;
  }
  const ValueName& n = it->second;
  out_ += n.isArg ? "%arg" : "%";
  detail::appendInt(out_, n.number);
  if (n.multi) {
    out_ += '#';
    detail::appendInt(out_, n.resultIndex);
  }
}

void Printer::printLoc(Location loc) {
  if (!options_.locations || !loc.known()) return;
  out_ += " loc(";
  detail::appendQuoted(out_, *loc.file);
  out_ += ':';
  detail::appendInt(out_, loc.line);
  out_ += ':';
  detail::appendInt(out_, loc.col);
  out_ += ')';
}

void Printer::printAttrDict(const AttrMap& attrs, bool (*skip)(std::string_view, unsigned),
                            unsigned numArgs) {
  bool first = true;
  for (const auto& [key, value] : attrs) {
    if (skip && skip(key, numArgs)) continue;
    out_ += first ? "{" : ", ";
    first = false;
    detail::appendKey(out_, key);
    out_ += " = ";
    detail::appendAttribute(out_, value);
  }
  if (!first) out_ += '}';
}

void Printer::printOp(Operation* op, int indentation) {
  if (op->is(OpCode::Func)) return printFunc(op, indentation);
  indent(indentation);
  if (op->numResults() > 0) {
    printValue(op->result(0));
    if (op->numResults() > 1) {
      out_.resize(out_.size() - 2);  // drop "#0"
      out_ += ':';
      detail::appendInt(out_, op->numResults());
    }
    out_ += " = ";
  }
  out_ += op->name();
  for (unsigned i = 0; i < op->numOperands(); ++i) {
    out_ += i ? ", " : " ";
    printValue(op->operand(i));
  }
  if (!op->attrs().empty()) {
    out_ += ' ';
    printAttrDict(op->attrs(), nullptr, 0);
  }
  for (unsigned i = 0; i < op->numResults(); ++i) {
    out_ += i ? ", " : " : ";
    out_ += op->result(i).type().str();
  }
  for (unsigned r = 0; r < op->numRegions(); ++r) {
    out_ += ' ';
    printRegion(op->region(r), indentation);
  }
  printLoc(op->loc());
}

void Printer::printBlockHeader(const Block& block, unsigned index) {
  out_ += "^bb";
  detail::appendInt(out_, index);
  if (block.numArguments() > 0) {
    out_ += '(';
    for (unsigned i = 0; i < block.numArguments(); ++i) {
      if (i) out_ += ", ";
      printValue(block.argument(i));
      out_ += ": ";
      out_ += block.argument(i).type().str();
    }
    out_ += ')';
  }
  out_ += ":\n";
}

void Printer::printRegion(Region& region, int indentation) {
  out_ += '{';
  if (region.empty()) {
    out_ += '}';
    return;
  }
  out_ += '\n';
  for (unsigned b = 0; b < region.numBlocks(); ++b) {
    Block* block = region.block(b);
    if (b > 0 || block->numArguments() > 0 || block->empty()) {
      indent(indentation);
      printBlockHeader(*block, b);
    }
    for (Operation* op = block->front(); op; op = op->nextOp()) {
      printOp(op, indentation + 2);
      out_ += '\n';
    }
  }
  indent(indentation);
  out_ += '}';
}

/// True for `argN.key` with N < numArgs: printed next to parameter N.
bool isInlineArgAttr(std::string_view key, unsigned numArgs) {
  return detail::splitArgAttr(key, numArgs).has_value();
}

bool isFuncHeaderAttr(std::string_view key, unsigned numArgs) {
  return key == "sym_name" || key == "result_types" || isInlineArgAttr(key, numArgs);
}

void Printer::printFunc(Operation* op, int indentation) {
  indent(indentation);
  out_ += "tt.func @";
  std::string name = op->strAttr("sym_name");
  if (detail::isIdentifier(name))
    out_ += name;
  else
    detail::appendQuoted(out_, name);

  Block* entry = op->numRegions() == 1 && !op->region(0).empty() ? &op->region(0).front() : nullptr;
  unsigned numArgs = entry ? entry->numArguments() : 0;
  out_ += '(';
  for (unsigned i = 0; i < numArgs; ++i) {
    if (i) out_ += ", ";
    printValue(entry->argument(i));
    out_ += ": ";
    out_ += entry->argument(i).type().str();
    // The map is sorted, so "argN." keys of one parameter are adjacent.
    std::string prefix = "arg" + std::to_string(i) + ".";
    bool first = true;
    for (auto it = op->attrs().lower_bound(prefix);
         it != op->attrs().end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      out_ += first ? " {" : ", ";
      first = false;
      detail::appendKey(out_, std::string_view(it->first).substr(prefix.size()));
      out_ += " = ";
      detail::appendAttribute(out_, it->second);
    }
    if (!first) out_ += '}';
  }
  out_ += ')';

  if (const Attribute* results = op->attr("result_types")) {
    out_ += " -> (";
    if (const auto* types = std::get_if<std::vector<Type>>(results)) {
      for (size_t i = 0; i < types->size(); ++i) {
        if (i) out_ += ", ";
        out_ += (*types)[i].str();
      }
    }
    out_ += ')';
  }
  bool hasOther = false;
  for (const auto& [key, value] : op->attrs()) hasOther |= !isFuncHeaderAttr(key, numArgs);
  if (hasOther) {
    out_ += " attributes ";
    printAttrDict(op->attrs(), isFuncHeaderAttr, numArgs);
  }
  for (unsigned r = 0; r < op->numRegions(); ++r) {
    // A body-less function prints no region; an empty entry block prints `{\n}`.
    if (op->region(r).empty()) continue;
    out_ += " {\n";
    Region& region = op->region(r);
    for (unsigned b = 0; b < region.numBlocks(); ++b) {
      Block* block = region.block(b);
      if (b > 0) {
        indent(indentation);
        printBlockHeader(*block, b);
      }
      for (Operation* child = block->front(); child; child = child->nextOp()) {
        printOp(child, indentation + 2);
        out_ += '\n';
      }
    }
    indent(indentation);
    out_ += '}';
  }
  printLoc(op->loc());
}

}  // namespace

std::optional<std::pair<unsigned, std::string_view>> detail::splitArgAttr(std::string_view key,
                                                                          unsigned numArgs) {
  if (key.size() < 5 || key.substr(0, 3) != "arg") return std::nullopt;
  size_t dot = key.find('.', 3);
  if (dot == std::string_view::npos || dot == 3 || dot + 1 == key.size()) return std::nullopt;
  unsigned n = 0;
  auto [end, ec] = std::from_chars(key.data() + 3, key.data() + dot, n);
  if (ec != std::errc() || end != key.data() + dot || n >= numArgs) return std::nullopt;
  // Reject leading zeros ("arg01.x") so the key prints back identically.
  if (key[3] == '0' && dot > 4) return std::nullopt;
  return std::make_pair(n, key.substr(dot + 1));
}

std::string print(const Module& module, const PrintOptions& options) {
  std::string out;
  out.reserve(4096);
  bool first = true;
  for (Operation* func : module.functions()) {
    if (!first) out += '\n';
    first = false;
    Printer printer(out, options);
    printer.number(func);
    printer.printOp(func, 0);
    out += '\n';
  }
  return out;
}

std::string print(Operation* op, const PrintOptions& options) {
  std::string out;
  Operation* root = op;
  while (Operation* parent = root->parentOp()) root = parent;
  Printer printer(out, options);
  printer.number(root);
  printer.printOp(op, 0);
  return out;
}

}  // namespace tessera::ir
