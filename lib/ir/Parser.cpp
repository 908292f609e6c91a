//===- Parser.cpp - Reading the Tile IR text form -------------------------===//
//
// A hand-written recursive-descent parser for the text form documented in
// Printer.cpp. It accepts everything the printer produces and a little more
// for hand-written tests:
//   * any value names (%x, %iv, %0#1), canonicalised when printed again;
//     results may be declared as `%0:2` (used as %0#0, %0#1) or `%a, %b`;
//   * `//` comments (lit RUN/CHECK lines) and free whitespace;
//   * names are scoped by region: a name defined inside a region is not
//     visible after it, and a name may not be redefined while visible.
// One rule is line-sensitive: an op's operand list starts on the line of its
// mnemonic (so `gpu.barrier` followed by `%1 = ...` is two ops).
//
// Ops without an explicit loc(...) get the position of their first character
// in the IR text, so verifier errors point into the .ttir file.
// Errors throw tessera::Error with file:line:col, the line and a caret.
//
//===----------------------------------------------------------------------===//

#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "PrinterDetail.h"
#include "TypeParsing.h"
#include "tessera/ir/IR.h"
#include "tessera/support/Diagnostics.h"

namespace tessera::ir {

namespace {

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$';
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view filename)
      : text_(text), filename_(filename), file_(Location::get(filename, 1, 1).file) {}

  std::unique_ptr<Module> parseModule();

 private:
  /// One visible name: a value, or an op whose results are used as name#N.
  struct Binding {
    ValueImpl* value = nullptr;
    Operation* multi = nullptr;
  };

  // Lexing.
  [[noreturn]] void error(size_t offset, const std::string& message);
  void skipWs();
  void skipSpaces();
  char peek() {
    skipWs();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool consumeIf(std::string_view token);
  void expect(std::string_view token, std::string_view what);
  std::string_view lexIdent();
  std::string_view lexValueName();
  std::string lexString();
  int64_t lexInt();
  Type parseType();
  Location locAt(size_t offset);

  // Names.
  void define(std::string_view name, Binding binding, size_t offset);
  Value lookup(std::string_view token, size_t offset);
  void popScope(size_t mark);

  // Grammar.
  Operation* parseFunc();
  void parseFuncArgs(Block& entry, AttrMap& attrs);
  void parseBlocks(Region& region, Block* block);
  void parseBlockHeader(Region& region, Block*& block);
  Operation* parseOp();
  bool atAttrDict();
  void parseAttrDict(AttrMap& attrs, std::string_view keyPrefix = {});
  Attribute parseAttrValue();
  std::vector<Type> parseTypeList();
  void parseOptionalLoc(Operation* op);

  std::string_view text_;
  std::string_view filename_;
  const std::string* file_;
  size_t pos_ = 0;
  // Incremental line tracking for op locations (ops come in text order).
  size_t lineScanPos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  std::unordered_map<std::string_view, Binding> names_;
  std::vector<std::string_view> defined_;  ///< in definition order, for scopes
};

//===----------------------------------------------------------------------===//
// Lexing
//===----------------------------------------------------------------------===//

void Parser::error(size_t offset, const std::string& message) {
  offset = std::min(offset, text_.size());
  int line = 1;
  size_t start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text_[i] == '\n') {
      ++line;
      start = i + 1;
    }
  SourceFile file{std::string(filename_), std::string(text_)};
  reportError(SourceLoc{&file, line, static_cast<int>(offset - start) + 1}, message);
}

void Parser::skipWs() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

void Parser::skipSpaces() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
}

bool Parser::consumeIf(std::string_view token) {
  skipWs();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

void Parser::expect(std::string_view token, std::string_view what) {
  if (!consumeIf(token)) error(pos_, "expected '" + std::string(token) + "' " + std::string(what));
}

std::string_view Parser::lexIdent() {
  skipWs();
  size_t start = pos_;
  while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
  return text_.substr(start, pos_ - start);
}

/// `%name` or `%name#N`, returned with the `%`.
std::string_view Parser::lexValueName() {
  skipWs();
  size_t start = pos_;
  if (pos_ >= text_.size() || text_[pos_] != '%') error(pos_, "expected a value name (%...)");
  ++pos_;
  while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
  if (pos_ == start + 1) error(start, "expected a value name after '%'");
  if (pos_ < text_.size() && text_[pos_] == '#') {
    ++pos_;
    size_t digits = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == digits) error(pos_, "expected a result number after '#'");
  }
  return text_.substr(start, pos_ - start);
}

std::string Parser::lexString() {
  skipWs();
  if (pos_ >= text_.size() || text_[pos_] != '"') error(pos_, "expected a string");
  size_t start = pos_++;
  std::string out;
  while (true) {
    if (pos_ >= text_.size() || text_[pos_] == '\n') error(start, "unterminated string");
    char c = text_[pos_++];
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos_ >= text_.size()) error(start, "unterminated string");
    char e = text_[pos_++];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'x': {
        unsigned value = 0;
        auto [end, ec] = std::from_chars(text_.data() + pos_,
                                         text_.data() + std::min(pos_ + 2, text_.size()), value, 16);
        if (ec != std::errc() || end != text_.data() + pos_ + 2)
          error(pos_, "expected two hex digits after \\x");
        pos_ += 2;
        out += static_cast<char>(value);
        break;
      }
      default: error(pos_ - 2, std::string("unknown escape '\\") + e + "'");
    }
  }
}

int64_t Parser::lexInt() {
  skipWs();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
  if (ec != std::errc()) error(pos_, "expected an integer");
  pos_ = end - text_.data();
  return value;
}

Type Parser::parseType() {
  skipWs();
  size_t start = pos_;
  Type t = detail::parseTypeAt(text_, pos_);
  if (!t) error(pos_ > start ? pos_ : start, "expected a type");
  return t;
}

Location Parser::locAt(size_t offset) {
  for (; lineScanPos_ < offset; ++lineScanPos_)
    if (text_[lineScanPos_] == '\n') {
      ++line_;
      lineStart_ = lineScanPos_ + 1;
    }
  return Location{file_, line_, static_cast<int>(offset - lineStart_) + 1};
}

//===----------------------------------------------------------------------===//
// Names and scopes
//===----------------------------------------------------------------------===//

void Parser::define(std::string_view name, Binding binding, size_t offset) {
  if (!names_.emplace(name, binding).second) error(offset, "redefinition of value " + std::string(name));
  defined_.push_back(name);
}

Value Parser::lookup(std::string_view token, size_t offset) {
  size_t hash = token.find('#');
  std::string_view name = token.substr(0, hash);
  auto it = names_.find(name);
  if (it == names_.end()) error(offset, "use of undefined value " + std::string(name));
  const Binding& b = it->second;
  if (hash == std::string_view::npos) {
    if (b.multi) error(offset, std::string(name) + " has several results; use " + std::string(name) + "#N");
    return Value(b.value);
  }
  if (!b.multi) error(offset, std::string(name) + " is a single value and takes no #N");
  unsigned index = 0;
  std::from_chars(token.data() + hash + 1, token.data() + token.size(), index);
  if (index >= b.multi->numResults())
    error(offset, std::string(name) + " has only " + std::to_string(b.multi->numResults()) + " results");
  return b.multi->result(index);
}

void Parser::popScope(size_t mark) {
  while (defined_.size() > mark) {
    names_.erase(defined_.back());
    defined_.pop_back();
  }
}

//===----------------------------------------------------------------------===//
// Attributes, types, locations
//===----------------------------------------------------------------------===//

/// At '{': an attribute dictionary starts with `key =`; anything else is a region.
bool Parser::atAttrDict() {
  if (peek() != '{') return false;
  size_t save = pos_;
  ++pos_;
  skipWs();
  bool dict = false;
  if (pos_ < text_.size() && text_[pos_] == '"') {
    lexString();
    dict = true;
  } else if (pos_ < text_.size() && isIdentChar(text_[pos_]) && text_[pos_] != '.') {
    lexIdent();
    dict = true;
  }
  dict = dict && peek() == '=';
  pos_ = save;
  return dict;
}

void Parser::parseAttrDict(AttrMap& attrs, std::string_view keyPrefix) {
  expect("{", "to start an attribute dictionary");
  if (consumeIf("}")) return;
  do {
    skipWs();
    size_t keyPos = pos_;
    std::string key(keyPrefix);
    if (pos_ < text_.size() && text_[pos_] == '"') {
      key += lexString();
    } else {
      std::string_view ident = lexIdent();
      if (ident.empty()) error(keyPos, "expected an attribute name");
      key += ident;
    }
    expect("=", "after the attribute name");
    Attribute value = parseAttrValue();
    if (!attrs.emplace(std::move(key), std::move(value)).second) error(keyPos, "duplicate attribute");
  } while (consumeIf(","));
  expect("}", "to end the attribute dictionary");
}

Attribute Parser::parseAttrValue() {
  skipWs();
  size_t start = pos_;
  char c = pos_ < text_.size() ? text_[pos_] : '\0';
  if (c == '"') return lexString();
  if (c == '[') {
    ++pos_;
    std::vector<int64_t> values;
    if (consumeIf("]")) return values;
    do values.push_back(lexInt());
    while (consumeIf(","));
    expect("]", "to end the integer array");
    return values;
  }
  if (consumeIf("types<")) {
    std::vector<Type> types;
    if (consumeIf(">")) return types;
    do types.push_back(parseType());
    while (consumeIf(","));
    expect(">", "to end the type list");
    return types;
  }
  if (consumeIf("type<")) {
    Type t = parseType();
    expect(">", "after the type");
    return t;
  }
  // A word or a number: letters, digits, '.', '+', '-'.
  while (pos_ < text_.size() && (isIdentChar(text_[pos_]) || text_[pos_] == '+' || text_[pos_] == '-'))
    ++pos_;
  std::string_view word = text_.substr(start, pos_ - start);
  if (word == "true") return true;
  if (word == "false") return false;
  if (word == "unit") return std::monostate();
  if (word == "inf") return std::numeric_limits<double>::infinity();
  if (word == "-inf") return -std::numeric_limits<double>::infinity();
  if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
  const char* first = word.data();
  const char* last = word.data() + word.size();
  if (word.find_first_of(".eE") != std::string_view::npos) {
    double d = 0;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec == std::errc() && end == last) return d;
  } else {
    int64_t i = 0;
    auto [end, ec] = std::from_chars(first, last, i);
    if (ec == std::errc() && end == last) return i;
    if (ec == std::errc::result_out_of_range) error(start, "integer attribute out of range");
  }
  error(start, "expected an attribute value");
}

std::vector<Type> Parser::parseTypeList() {
  std::vector<Type> types;
  do types.push_back(parseType());
  while (consumeIf(","));
  return types;
}

void Parser::parseOptionalLoc(Operation* op) {
  if (!consumeIf("loc(")) return;
  std::string file = lexString();
  expect(":", "after the file name");
  int64_t line = lexInt();
  expect(":", "after the line");
  int64_t col = lexInt();
  expect(")", "to end the location");
  op->setLoc(Location::get(file, static_cast<int>(line), static_cast<int>(col)));
}

//===----------------------------------------------------------------------===//
// Functions, regions, ops
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  while (peek() != '\0') {
    size_t start = pos_;
    if (text_.substr(pos_, 8) != "tt.func ") error(start, "expected 'tt.func' at the top level");
    Operation* func = parseFunc();
    if (module->lookup(funcName(func))) {
      std::string name = funcName(func);
      delete func;
      error(start, "redefinition of function @" + name);
    }
    module->addFunction(func);
  }
  return module;
}

Operation* Parser::parseFunc() {
  size_t start = pos_;
  pos_ += 8;  // "tt.func "
  expect("@", "before the function name");
  AttrMap attrs;
  std::string name;
  if (pos_ < text_.size() && text_[pos_] == '"') {
    name = lexString();
  } else {
    name = std::string(lexIdent());
    if (name.empty()) error(pos_, "expected a function name");
  }
  attrs["sym_name"] = std::move(name);
  // The op owns what we build so far; an exception unwinds through unique_ptr.
  std::unique_ptr<Operation> func(Operation::create(OpCode::Func, locAt(start), {}, {}, {}, 1));
  Block* entry = func->region(0).addBlock();
  parseFuncArgs(*entry, attrs);
  if (consumeIf("->")) {
    expect("(", "before the result types");
    std::vector<Type> results;
    if (!consumeIf(")")) {
      results = parseTypeList();
      expect(")", "after the result types");
    }
    attrs["result_types"] = std::move(results);
  }
  if (consumeIf("attributes")) parseAttrDict(attrs);
  for (auto& [key, value] : attrs) func->setAttr(key, std::move(value));
  if (peek() == '{') {
    ++pos_;
    parseBlocks(func->region(0), entry);
  } else {
    // A declaration: the region keeps no block, so it has nowhere to keep
    // parameters.
    if (entry->numArguments() > 0) error(start, "a function without a body cannot have parameters");
    func.reset(Operation::create(OpCode::Func, func->loc(), {}, {}, func->attrs(), 1));
  }
  popScope(0);
  parseOptionalLoc(func.get());
  return func.release();
}

void Parser::parseFuncArgs(Block& entry, AttrMap& attrs) {
  expect("(", "before the function parameters");
  if (consumeIf(")")) return;
  do {
    skipWs();
    size_t namePos = pos_;
    std::string_view name = lexValueName();
    if (name.find('#') != std::string_view::npos) error(namePos, "a parameter name cannot contain '#'");
    expect(":", "after the parameter name");
    Value arg = entry.addArgument(parseType());
    define(name, Binding{arg.impl(), nullptr}, namePos);
    if (peek() == '{') parseAttrDict(attrs, "arg" + std::to_string(arg.index()) + ".");
  } while (consumeIf(","));
  expect(")", "after the function parameters");
}

void Parser::parseBlockHeader(Region& region, Block*& block) {
  ++pos_;  // '^'
  if (lexIdent().empty()) error(pos_, "expected a block label after '^'");
  block = region.addBlock();
  if (consumeIf("(")) {
    do {
      skipWs();
      size_t namePos = pos_;
      std::string_view name = lexValueName();
      if (name.find('#') != std::string_view::npos) error(namePos, "a block argument name cannot contain '#'");
      expect(":", "after the block argument name");
      Value arg = block->addArgument(parseType());
      define(name, Binding{arg.impl(), nullptr}, namePos);
    } while (consumeIf(","));
    expect(")", "after the block arguments");
  }
  expect(":", "after the block label");
}

/// Parses the blocks of a region after its '{' up to and including '}'.
/// `block` is the block to fill first (a function's entry) or null.
void Parser::parseBlocks(Region& region, Block* block) {
  size_t scope = defined_.size();
  while (true) {
    char c = peek();
    if (c == '}') {
      ++pos_;
      break;
    }
    if (c == '\0') error(pos_, "expected '}' to end the region");
    if (c == '^') {
      parseBlockHeader(region, block);
      continue;
    }
    if (!block) block = region.addBlock();
    block->push_back(parseOp());
  }
  popScope(scope);
}

Operation* Parser::parseOp() {
  size_t start = pos_;
  // Results: `%a, %b =` or `%0:2 =`.
  struct ResultName {
    std::string_view name;
    size_t offset;
    int64_t count;  ///< -1: a single value
  };
  std::vector<ResultName> resultNames;
  unsigned numResults = 0;
  if (peek() == '%') {
    do {
      skipWs();
      size_t namePos = pos_;
      std::string_view name = lexValueName();
      if (name.find('#') != std::string_view::npos) error(namePos, "a result name cannot contain '#'");
      int64_t count = -1;
      if (pos_ < text_.size() && text_[pos_] == ':') {
        ++pos_;
        count = lexInt();
        if (count < 1) error(namePos, "a result group needs at least one result");
      }
      resultNames.push_back({name, namePos, count});
      numResults += count < 0 ? 1 : static_cast<unsigned>(count);
    } while (consumeIf(","));
    expect("=", "after the result names");
  }

  skipWs();
  size_t opPos = pos_;
  std::string_view mnemonicText = lexIdent();
  if (mnemonicText.empty()) error(opPos, "expected an operation name");
  std::optional<OpCode> code = opCodeFromMnemonic(mnemonicText);
  if (!code) error(opPos, "unknown operation '" + std::string(mnemonicText) + "'");
  if (*code == OpCode::Func) error(opPos, "tt.func is only allowed at the top level");

  // Operands start on the mnemonic's line.
  std::vector<Value> operands;
  skipSpaces();
  if (pos_ < text_.size() && text_[pos_] == '%') {
    do {
      skipWs();
      size_t usePos = pos_;
      operands.push_back(lookup(lexValueName(), usePos));
    } while (consumeIf(","));
  }
  AttrMap attrs;
  if (atAttrDict()) parseAttrDict(attrs);
  std::vector<Type> types;
  size_t typesPos = pos_;
  if (consumeIf(":")) {
    typesPos = pos_;
    types = parseTypeList();
  }
  if (types.size() != numResults)
    error(resultNames.empty() ? typesPos : start,
          "'" + std::string(mnemonicText) + "' defines " + std::to_string(numResults) +
              " result(s) but lists " + std::to_string(types.size()) + " result type(s)");

  Location loc = locAt(opPos);
  // Regions: each `{...}` after the types. The op's results are defined only
  // after its regions, so nested ops cannot use them.
  std::vector<std::unique_ptr<Region>> regions;
  while (peek() == '{') {
    ++pos_;
    regions.push_back(std::make_unique<Region>(nullptr));
    parseBlocks(*regions.back(), nullptr);
  }
  std::unique_ptr<Operation> op(Operation::create(*code, loc, types, operands, std::move(attrs),
                                                  static_cast<unsigned>(regions.size())));
  for (size_t r = 0; r < regions.size(); ++r) op->region(r).takeBody(*regions[r]);
  parseOptionalLoc(op.get());

  unsigned next = 0;
  for (const ResultName& r : resultNames) {
    if (r.count < 0) {
      define(r.name, Binding{op->result(next).impl(), nullptr}, r.offset);
      ++next;
    } else {
      if (resultNames.size() != 1) error(r.offset, "a result group %name:N must be the only result name");
      define(r.name, Binding{nullptr, op.get()}, r.offset);
      next += static_cast<unsigned>(r.count);
    }
  }
  return op.release();
}

}  // namespace

std::unique_ptr<Module> parseModule(std::string_view text, std::string_view filename) {
  Parser parser(text, filename);
  return parser.parseModule();
}

}  // namespace tessera::ir
