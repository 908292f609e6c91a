//===- Types.cpp - Interned Tile IR types ---------------------------------===//
//
// Every distinct type exists once (a TypeStorage that lives until the process
// exits), so Type is a pointer and equality is pointer equality. Scalars are
// a static table; pointers and tensors are uniqued in hash maps behind one
// mutex (types are made at compile time, not in hot interpreter loops, so a
// single lock is simpler than sharding and fast enough).
//
//===----------------------------------------------------------------------===//

#include <array>
#include <cassert>
#include <charconv>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "TypeParsing.h"
#include "tessera/ir/Types.h"

namespace tessera::ir {

struct TypeStorage {
  TypeKind kind;
  // Pointer: pointee and address space.
  const TypeStorage* pointee = nullptr;
  int addressSpace = 0;
  // Tensor: shape and element type.
  std::vector<int64_t> shape;
  const TypeStorage* element = nullptr;
  Encoding encoding;
};

namespace {

constexpr unsigned kNumScalarKinds = static_cast<unsigned>(TypeKind::Pointer);

struct ScalarInfo {
  const char* name;
  unsigned bits;
  unsigned mantissa;
  unsigned exponent;
};

// Indexed by TypeKind (scalars only).
constexpr std::array<ScalarInfo, kNumScalarKinds> kScalars = {{
    {"i1", 1, 0, 0},
    {"i8", 8, 0, 0},
    {"i16", 16, 0, 0},
    {"i32", 32, 0, 0},
    {"i64", 64, 0, 0},
    {"f8E4M3FN", 8, 3, 4},
    {"f8E5M2", 8, 2, 5},
    {"f8E4M3FNUZ", 8, 3, 4},
    {"f8E5M2FNUZ", 8, 2, 5},
    {"f8E4M3B11FNUZ", 8, 3, 4},
    {"f16", 16, 10, 5},
    {"bf16", 16, 7, 8},
    {"f32", 32, 23, 8},
    {"f64", 64, 52, 11},
}};

const std::vector<int64_t> kNoShape;

struct PtrKeyHash {
  size_t operator()(const std::pair<const TypeStorage*, int>& k) const {
    return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
  }
};

}  // namespace

/// Owns every TypeStorage. Leaked on purpose: types outlive all IR.
struct TypeUniquer {
  std::array<TypeStorage, kNumScalarKinds> scalars;
  std::mutex mutex;
  std::unordered_map<std::pair<const TypeStorage*, int>, const TypeStorage*, PtrKeyHash> pointers;
  std::unordered_map<std::string, const TypeStorage*> tensors;  // key: shape bytes + element
  std::deque<TypeStorage> storage;

  TypeUniquer() {
    for (unsigned i = 0; i < kNumScalarKinds; ++i) scalars[i].kind = static_cast<TypeKind>(i);
  }

  static TypeUniquer& get() {
    static TypeUniquer* instance = new TypeUniquer();
    return *instance;
  }

  Type scalar(TypeKind kind) { return Type(&scalars[static_cast<unsigned>(kind)]); }

  Type pointer(Type pointee, int addressSpace) {
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = pointers.try_emplace({pointee.impl(), addressSpace}, nullptr);
    if (inserted) {
      TypeStorage& s = storage.emplace_back();
      s.kind = TypeKind::Pointer;
      s.pointee = pointee.impl();
      s.addressSpace = addressSpace;
      it->second = &s;
    }
    return Type(it->second);
  }

  Type tensor(std::vector<int64_t> shape, Type element, Encoding encoding) {
    std::string key(reinterpret_cast<const char*>(shape.data()), shape.size() * sizeof(int64_t));
    const TypeStorage* elem = element.impl();
    key.append(reinterpret_cast<const char*>(&elem), sizeof(elem));
    const EncodingStorage* enc = encoding.impl();
    key.append(reinterpret_cast<const char*>(&enc), sizeof(enc));
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = tensors.try_emplace(std::move(key), nullptr);
    if (inserted) {
      TypeStorage& s = storage.emplace_back();
      s.kind = TypeKind::Tensor;
      s.shape = std::move(shape);
      s.element = elem;
      s.encoding = encoding;
      it->second = &s;
    }
    return Type(it->second);
  }
};

//===----------------------------------------------------------------------===//
// Factories and accessors
//===----------------------------------------------------------------------===//

Type Type::i1() { return scalar(TypeKind::I1); }
Type Type::i8() { return scalar(TypeKind::I8); }
Type Type::i16() { return scalar(TypeKind::I16); }
Type Type::i32() { return scalar(TypeKind::I32); }
Type Type::i64() { return scalar(TypeKind::I64); }
Type Type::f16() { return scalar(TypeKind::F16); }
Type Type::bf16() { return scalar(TypeKind::BF16); }
Type Type::f32() { return scalar(TypeKind::F32); }
Type Type::f64() { return scalar(TypeKind::F64); }

Type Type::integer(unsigned width) {
  switch (width) {
    case 1: return i1();
    case 8: return i8();
    case 16: return i16();
    case 32: return i32();
    case 64: return i64();
  }
  assert(false && "integer width must be 1, 8, 16, 32 or 64");
  return Type();
}

Type Type::scalar(TypeKind kind) {
  assert(static_cast<unsigned>(kind) < kNumScalarKinds && "not a scalar kind");
  return TypeUniquer::get().scalar(kind);
}

Type Type::pointer(Type pointee, int addressSpace) {
  assert(pointee && "pointer to a null type");
  return TypeUniquer::get().pointer(pointee, addressSpace);
}

Type Type::tensor(std::vector<int64_t> shape, Type elementType, Encoding encoding) {
  assert(elementType && !elementType.isTensor() && "tensor element must be a scalar");
  assert(!shape.empty() && "tensors have rank >= 1");
  return TypeUniquer::get().tensor(std::move(shape), elementType, encoding);
}

TypeKind Type::kind() const { return impl_->kind; }

bool Type::isInteger() const { return impl_ && impl_->kind <= TypeKind::I64; }
bool Type::isInteger(unsigned width) const { return isInteger() && bitWidth() == width; }
bool Type::isFloat() const {
  return impl_ && impl_->kind >= TypeKind::F8E4M3FN && impl_->kind <= TypeKind::F64;
}
bool Type::isFP8() const {
  return impl_ && impl_->kind >= TypeKind::F8E4M3FN && impl_->kind <= TypeKind::F8E4M3B11FNUZ;
}
bool Type::isPointer() const { return impl_ && impl_->kind == TypeKind::Pointer; }
bool Type::isBlockPointer() const {
  return isPointer() && impl_->pointee->kind == TypeKind::Tensor;
}
bool Type::isTensor() const { return impl_ && impl_->kind == TypeKind::Tensor; }

unsigned Type::bitWidth() const {
  if (impl_->kind == TypeKind::Pointer) return 64;
  assert(impl_->kind != TypeKind::Tensor && "bitWidth of a tensor");
  return kScalars[static_cast<unsigned>(impl_->kind)].bits;
}

unsigned Type::byteWidth() const {
  if (impl_->kind == TypeKind::Tensor) return elementType().byteWidth();
  unsigned bits = bitWidth();
  return bits < 8 ? 1 : bits / 8;
}

unsigned Type::mantissaBits() const {
  assert(isFloat() && "mantissaBits of a non-float");
  return kScalars[static_cast<unsigned>(impl_->kind)].mantissa;
}

unsigned Type::exponentBits() const {
  assert(isFloat() && "exponentBits of a non-float");
  return kScalars[static_cast<unsigned>(impl_->kind)].exponent;
}

Type Type::pointeeType() const {
  assert(isPointer() && "pointeeType of a non-pointer");
  return Type(impl_->pointee);
}

int Type::addressSpace() const {
  assert(isPointer() && "addressSpace of a non-pointer");
  return impl_->addressSpace;
}

const std::vector<int64_t>& Type::shape() const {
  return isTensor() ? impl_->shape : kNoShape;
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) n *= d;
  return n;
}

Type Type::elementType() const { return isTensor() ? Type(impl_->element) : *this; }

Type Type::withElementType(Type element) const {
  return isTensor() ? tensor(impl_->shape, element, impl_->encoding) : element;
}

Encoding Type::encoding() const { return isTensor() ? impl_->encoding : Encoding(); }

Type Type::withEncoding(Encoding encoding) const {
  return isTensor() ? tensor(impl_->shape, Type(impl_->element), encoding) : *this;
}

//===----------------------------------------------------------------------===//
// Text form
//===----------------------------------------------------------------------===//

namespace {

void appendType(std::string& out, const TypeStorage* t) {
  switch (t->kind) {
    case TypeKind::Pointer:
      out += "!tt.ptr<";
      appendType(out, t->pointee);
      if (t->addressSpace != 1) {
        out += ", ";
        out += std::to_string(t->addressSpace);
      }
      out += '>';
      return;
    case TypeKind::Tensor:
      out += "tensor<";
      for (int64_t d : t->shape) {
        out += std::to_string(d);
        out += 'x';
      }
      appendType(out, t->element);
      if (t->encoding) {
        out += ", ";
        out += t->encoding.str();
      }
      out += '>';
      return;
    default:
      out += kScalars[static_cast<unsigned>(t->kind)].name;
  }
}

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

void skipSpaces(std::string_view text, size_t& pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
}

bool consume(std::string_view text, size_t& pos, std::string_view word) {
  if (text.substr(pos, word.size()) != word) return false;
  pos += word.size();
  return true;
}

bool parseInt(std::string_view text, size_t& pos, int64_t& value) {
  auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), value);
  if (ec != std::errc()) return false;
  pos = end - text.data();
  return true;
}

}  // namespace

std::string Type::str() const {
  if (!impl_) return "<<null type>>";
  std::string out;
  appendType(out, impl_);
  return out;
}

Type detail::parseTypeAt(std::string_view text, size_t& pos) {
  if (consume(text, pos, "!tt.ptr<")) {
    skipSpaces(text, pos);
    Type pointee = parseTypeAt(text, pos);
    if (!pointee) return Type();
    skipSpaces(text, pos);
    int64_t space = 1;
    if (consume(text, pos, ",")) {
      skipSpaces(text, pos);
      if (!parseInt(text, pos, space)) return Type();
      skipSpaces(text, pos);
    }
    if (!consume(text, pos, ">")) return Type();
    return Type::pointer(pointee, static_cast<int>(space));
  }
  if (consume(text, pos, "tensor<")) {
    std::vector<int64_t> shape;
    int64_t dim;
    size_t save = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && parseInt(text, pos, dim)) {
      if (dim < 0 || !consume(text, pos, "x")) return Type();
      shape.push_back(dim);
      save = pos;
    }
    pos = save;
    if (shape.empty()) return Type();
    Type element = parseTypeAt(text, pos);
    if (!element || element.isTensor()) return Type();
    Encoding encoding;
    if (consume(text, pos, ",")) {
      skipSpaces(text, pos);
      encoding = Encoding::parseAt(text, pos);
      if (!encoding) return Type();
    }
    if (!consume(text, pos, ">")) return Type();
    return Type::tensor(std::move(shape), element, encoding);
  }
  size_t end = pos;
  while (end < text.size() && isAlnum(text[end])) ++end;
  std::string_view word = text.substr(pos, end - pos);
  for (unsigned i = 0; i < kNumScalarKinds; ++i) {
    if (word == kScalars[i].name) {
      pos = end;
      return Type::scalar(static_cast<TypeKind>(i));
    }
  }
  return Type();
}

Type Type::parse(std::string_view text) {
  size_t pos = 0;
  skipSpaces(text, pos);
  Type t = detail::parseTypeAt(text, pos);
  skipSpaces(text, pos);
  return pos == text.size() ? t : Type();
}

}  // namespace tessera::ir
