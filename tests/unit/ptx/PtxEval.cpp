//===- PtxEval.cpp - A CPU model of the PTX the emitter writes ------------===//
//
// Each instruction is parsed once into a closure over register indices that
// returns the next pc; threads run the closures from pc 0. Floats are
// modelled exactly in long double (64-bit mantissa: every f64, int64 and
// f32 x f32 product is exact) and rounded to the destination format by
// roundTo, written here from the IEEE definition independently of the
// interpreter's codecs.
//
//===----------------------------------------------------------------------===//

#include "PtxEval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace tessera::ptxeval {

namespace {

struct Fmt {
  int e, m;
};

bool floatFmt(const std::string& t, Fmt& f) {
  if (t == "f16") f = {5, 10};
  else if (t == "bf16") f = {8, 7};
  else if (t == "f32") f = {8, 23};
  else if (t == "f64") f = {11, 52};
  else return false;
  return true;
}

int typeBits(const std::string& t) {
  if (t == "pred") return 1;
  if (t == "bf16") return 16;
  std::string digits = t.substr(1);
  return std::stoi(digits);
}

uint64_t maskBits(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

long double decode(uint64_t bits, Fmt f) {
  int bias = (1 << (f.e - 1)) - 1;
  bool neg = (bits >> (f.e + f.m)) & 1;
  uint64_t ex = (bits >> f.m) & maskBits(f.e), man = bits & maskBits(f.m);
  long double v;
  if (ex == maskBits(f.e)) v = man ? NAN : INFINITY;
  else if (ex == 0) v = std::ldexp(static_cast<long double>(man), 1 - bias - f.m);
  else v = std::ldexp(static_cast<long double>(man | (1ull << f.m)), static_cast<int>(ex) - bias - f.m);
  return neg ? -v : v;
}

/// x rounded to format f (nearest even, or toward zero); NaN -> the
/// canonical all-ones NaN.
uint64_t roundTo(long double x, Fmt f, bool rz) {
  int total = 1 + f.e + f.m;
  uint64_t signBit = 1ull << (total - 1);
  if (std::isnan(x)) return signBit - 1;
  uint64_t sign = std::signbit(x) ? signBit : 0;
  uint64_t infBits = maskBits(f.e) << f.m, maxBits = infBits - 1;
  long double a = std::fabs(x);
  if (std::isinf(a)) return sign | infBits;
  if (a == 0) return sign;
  int bias = (1 << (f.e - 1)) - 1, emin = 1 - bias;
  int e = std::ilogb(a);
  int ulpExp = std::max(e, emin) - f.m;
  long double q = std::ldexp(a, -ulpExp);
  if (q >= std::ldexp(1.0L, 62)) return sign | (rz ? maxBits : infBits);
  long double r = rz ? std::trunc(q) : std::nearbyint(q);
  uint64_t k = static_cast<uint64_t>(r);
  if (k == 0) return sign;
  int ee = ulpExp + f.m;
  if (k >= (2ull << f.m)) {
    k >>= 1;
    ++ee;
  }
  uint64_t bits = k < (1ull << f.m) ? k : (static_cast<uint64_t>(ee + bias) << f.m) | (k - (1ull << f.m));
  if (bits > maxBits) return sign | (rz ? maxBits : infBits);
  return sign | bits;
}

int64_t signExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = 1ull << (bits - 1);
  v &= maskBits(bits);
  return static_cast<int64_t>((v ^ m) - m);
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, c)) out.push_back(cur);
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == ';')) s.pop_back();
  return s;
}

/// Splits operands at top-level commas.
std::vector<std::string> operands(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

}  // namespace


struct PtxEval::Machine {
  bool inputMode = true;  ///< run(): loads return `input`, stores recorded
  uint64_t input = 0;
  std::vector<Store> stores;
  std::vector<uint64_t> params;
  const std::vector<std::pair<uint64_t, std::vector<uint8_t>*>>* buffers = nullptr;
  std::vector<uint8_t> shared;
  int ctaid = 0;
  int threads = 1;
  /// stmatrix is warp-wide: each lane's part (its row address, its words)
  /// waits here, per warp and per instance, until the warp's last lane
  /// arrives; then the matrices are written. (Threads run one by one up to
  /// a barrier, and the stored data is only read after one.)
  struct StmatrixParts {
    std::vector<uint64_t> address = std::vector<uint64_t>(32, 0);
    std::vector<std::vector<uint32_t>> words = std::vector<std::vector<uint32_t>>(32);
    int arrived = 0;
  };
  std::map<std::pair<int, int64_t>, StmatrixParts> stmatrix;
  /// ldmatrix is warp-wide too, and a lane reads rows other lanes address:
  /// every thread stops at it (as at a barrier) after giving its address,
  /// and reads once all have (per warp and per instance).
  std::map<std::pair<int, int64_t>, std::vector<uint64_t>> ldmatrix;
  /// shfl.sync.idx the same way: each lane's source value, then each reads
  /// the lane it names.
  std::map<std::pair<int, int64_t>, std::vector<uint64_t>> shfl;

  uint8_t* at(bool sharedSpace, uint64_t addr, int bytes) {
    if (sharedSpace) {
      if (addr + bytes > shared.size()) throw std::runtime_error("PtxEval: shared access out of bounds");
      return shared.data() + addr;
    }
    for (const auto& [base, buf] : *buffers)
      if (addr >= base && addr + bytes <= base + buf->size()) return buf->data() + (addr - base);
    throw std::runtime_error("PtxEval: global access outside every buffer");
  }
};

struct PtxEval::Thread {
  std::vector<uint64_t> regs;
  int tid = 0;
  Machine* m = nullptr;
  int64_t stmatrixCount = 0;  ///< stmatrix instructions this thread has executed
  int64_t ldmatrixCount = 0;  ///< ldmatrix instructions this thread has completed
  bool ldmatrixWaiting = false;  ///< gave its address to the current ldmatrix
  int64_t shflCount = 0;  ///< shfl.sync instructions this thread has completed
  bool shflWaiting = false;  ///< gave its value to the current shfl.sync
};

int PtxEval::regIndex(const std::string& name) {
  auto it = regNames_.find(name);
  if (it != regNames_.end()) return it->second;
  int bits = name.rfind("%rd", 0) == 0 ? 64 : name.rfind("%r", 0) == 0 ? 32 : name.rfind("%h", 0) == 0 ? 16 : 1;
  int idx = static_cast<int>(regBits_.size());
  regBits_.push_back(bits);
  regNames_[name] = idx;
  return idx;
}

PtxEval::PtxEval(const std::string& ptx) {
  size_t entry = ptx.find(".entry");
  if (entry == std::string::npos) throw std::runtime_error("no .entry");
  size_t open = ptx.find("\n{", entry);
  size_t close = ptx.rfind("\n}");
  std::istringstream body(ptx.substr(open + 2, close - open - 2));
  std::string line;
  std::vector<std::string> lines;
  std::map<std::string, int> labels;
  while (std::getline(body, line)) {
    line = trim(line);
    // (Braces alone open and close an inline asm's scope: names are global here.)
    if (line.empty() || line[0] == '.' || line.rfind("//", 0) == 0 || line == "{" || line == "}") continue;
    if (line.back() == ':') {
      labels[line.substr(0, line.size() - 1)] = static_cast<int>(lines.size());
      continue;
    }
    lines.push_back(line);
  }
  for (const auto& l : lines) steps_.push_back(compile(l, labels));
}

uint64_t PtxEval::addBuffer(std::vector<uint8_t>* bytes) {
  uint64_t base = (static_cast<uint64_t>(buffers_.size()) + 1) << 40;
  buffers_.push_back({base, bytes});
  return base;
}

std::vector<PtxEval::Store> PtxEval::run(uint64_t input) {
  Machine m;
  m.input = input;
  Thread t;
  t.regs.assign(regBits_.size(), 0);
  t.m = &m;
  for (int pc = 0; pc < static_cast<int>(steps_.size());) {
    int next = steps_[pc](t);
    if (next == kExit) break;
    if (next == kBarrier || next == kWait)
      throw std::runtime_error("PtxEval: a barrier or warp-wide instruction in a single-thread run");
    pc = next == kNext ? pc + 1 : next;
  }
  return m.stores;
}

void PtxEval::runBlock(const std::vector<uint64_t>& params, int threads, int sharedBytes, int ctaid) {
  Machine m;
  m.inputMode = false;
  m.params = params;
  m.buffers = &buffers_;
  m.shared.assign(static_cast<size_t>(sharedBytes), 0xA5);  // garbage, not zeros
  m.ctaid = ctaid;
  m.threads = threads;
  std::vector<Thread> ts(threads);
  std::vector<int> pcs(threads, 0);
  std::vector<bool> exited(threads, false);
  for (int i = 0; i < threads; ++i) {
    ts[i].regs.assign(regBits_.size(), 0);
    ts[i].tid = i;
    ts[i].m = &m;
  }
  int64_t budget = int64_t{1} << 31;
  for (int live = threads; live > 0;) {
    // Every thread runs to its next barrier (or its end).
    for (int i = 0; i < threads; ++i) {
      if (exited[i]) continue;
      for (;;) {
        if (--budget < 0) throw std::runtime_error("PtxEval: step budget exhausted (a loop that never ends?)");
        if (pcs[i] >= static_cast<int>(steps_.size())) {
          exited[i] = true;
          --live;
          break;
        }
        int next = steps_[pcs[i]](ts[i]);
        if (next == kExit) {
          exited[i] = true;
          --live;
          break;
        }
        if (next == kBarrier) {
          ++pcs[i];
          break;
        }
        if (next == kWait) break;  // the same instruction again, after the others
        pcs[i] = next == kNext ? pcs[i] + 1 : next;
      }
    }
  }
}

PtxEval::Step PtxEval::compile(const std::string& text, std::map<std::string, int>& labels) {
  static const std::regex kReg("^%(p|h|r|rd)[0-9]+$");
  std::string line = text;
  int guard = -1;
  bool negate = false;
  if (line[0] == '@') {
    size_t sp = line.find(' ');
    std::string g = line.substr(1, sp - 1);
    negate = g[0] == '!';
    guard = regIndex(negate ? g.substr(1) : g);
    line = trim(line.substr(sp + 1));
  }
  size_t sp = line.find_first_of(" \t");
  std::string opcode = line.substr(0, sp);
  std::vector<std::string> ops = sp == std::string::npos ? std::vector<std::string>{} : operands(line.substr(sp + 1));
  std::vector<std::string> parts = split(opcode, '.');
  const std::string& op = parts[0];
  auto fail = [&]() -> Step { throw std::runtime_error("PtxEval: unsupported instruction: " + text); };
  auto guarded = [guard, negate](const Thread& t) { return guard < 0 || ((t.regs[guard] != 0) != negate); };

  if (op == "ret") return [](Thread&) { return kExit; };
  if (op == "bar") {
    if (guard >= 0) fail();
    return [](Thread&) { return kBarrier; };
  }
  if (op == "bra") {
    auto it = labels.find(ops.at(0));
    if (it == labels.end()) fail();
    int target = it->second;
    return [guarded, target](Thread& t) { return guarded(t) ? target : kNext; };
  }
  if (parts.size() < 2) fail();

  // Source operand -> getter of its bits.
  using Get = std::function<uint64_t(const Thread&)>;
  auto src = [&](const std::string& o) -> Get {
    if (std::regex_match(o, kReg)) {
      int r = regIndex(o);
      return [r](const Thread& t) { return t.regs[r]; };
    }
    if (o.rfind("0f", 0) == 0 || o.rfind("0d", 0) == 0 || o.rfind("0x", 0) == 0 || o.rfind("0X", 0) == 0) {
      uint64_t v = std::stoull(o.substr(2), nullptr, 16);
      return [v](const Thread&) { return v; };
    }
    if (!o.empty() && (std::isdigit(static_cast<unsigned char>(o[0])) || o[0] == '-')) {
      uint64_t v = static_cast<uint64_t>(std::stoll(o));
      return [v](const Thread&) { return v; };
    }
    if (o[0] == '{') {
      auto regs = operands(o.substr(1, o.size() - 2));
      if (regs.size() != 2) fail();
      int lo = regIndex(regs[0]), hi = regIndex(regs[1]);
      int w = regBits_[lo];
      return [lo, hi, w](const Thread& t) { return t.regs[lo] | (t.regs[hi] << w); };
    }
    if (o == "%tid.x") return [](const Thread& t) { return static_cast<uint64_t>(t.tid); };
    if (o == "%ctaid.x") return [](const Thread& t) { return static_cast<uint64_t>(t.m->ctaid); };
    if (o == "%tid.y" || o == "%tid.z" || o == "%ctaid.y" || o == "%ctaid.z" || o == "global_smem")
      return [](const Thread&) { return uint64_t{0}; };
    if (o == "%nctaid.y" || o == "%nctaid.z") return [](const Thread&) { return uint64_t{1}; };  // a 1-D grid
    fail();
    return {};
  };
  auto dst = [&](const std::string& o) {
    if (!std::regex_match(o, kReg)) fail();
    return regIndex(o);
  };
  auto wrap = [guarded, this](int d, std::function<uint64_t(const Thread&)> f) -> Step {
    uint64_t mask = maskBits(regBits_[d]);
    return [guarded, d, f, mask](Thread& t) {
      if (guarded(t)) t.regs[d] = f(t) & mask;
      return kNext;
    };
  };
  const std::string& type = parts.back();

  if (op == "ldmatrix") {
    // ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {r0, ...}, [addr]:
    // lane 8 i + r gives the address of row r of matrix i; lane l gets, in
    // register i, row l / 4's columns 2 (l % 4) and + 1 of matrix i, or with
    // .trans column l / 4's rows 2 (l % 4) and + 1 (the low half first).
    if (guard >= 0 || ops.size() != 2) fail();
    int count = 0;
    for (const std::string& x : parts) count = x == "x1" ? 1 : x == "x2" ? 2 : x == "x4" ? 4 : count;
    bool trans = std::find(parts.begin(), parts.end(), "trans") != parts.end();
    if (count == 0) fail();
    Get address = src(ops[1].substr(1, ops[1].size() - 2));
    std::vector<int> regs;
    for (const std::string& r : operands(ops[0].substr(1, ops[0].size() - 2))) regs.push_back(dst(r));
    if (static_cast<int>(regs.size()) != count) fail();
    return [address, regs, count, trans](Thread& t) {
      Machine& m = *t.m;
      int warp = t.tid / 32, lane = t.tid % 32;
      std::vector<uint64_t>& rows = m.ldmatrix[{warp, t.ldmatrixCount}];
      if (!t.ldmatrixWaiting) {
        if (rows.empty()) rows.assign(32, ~uint64_t{0});
        rows[lane] = address(t);
        t.ldmatrixWaiting = true;
        return kWait;
      }
      t.ldmatrixWaiting = false;
      ++t.ldmatrixCount;
      auto element = [&](int matrix, int row, int col) {
        uint64_t a = rows[8 * matrix + row];
        if (a == ~uint64_t{0}) throw std::runtime_error("PtxEval: ldmatrix row address of a lane that did not arrive");
        uint16_t v;
        std::memcpy(&v, m.at(true, a + 2 * col, 2), 2);
        return uint64_t{v};
      };
      for (int i = 0; i < count; ++i) {
        int r = lane / 4, c = 2 * (lane % 4);
        uint64_t lo = trans ? element(i, c, r) : element(i, r, c);
        uint64_t hi = trans ? element(i, c + 1, r) : element(i, r, c + 1);
        t.regs[regs[i]] = lo | (hi << 16);
      }
      return kNext;
    };
  }
  if (op == "shfl") {
    // shfl.sync.idx.b32 d, a, lane, 31, -1 (the whole warp): d = a of that lane.
    if (guard >= 0 || ops.size() != 5 || parts.size() != 4 || parts[1] != "sync" || parts[2] != "idx" ||
        ops[3] != "31" || ops[4] != "-1")
      fail();
    int d = dst(ops[0]);
    Get value = src(ops[1]), from = src(ops[2]);
    return [d, value, from](Thread& t) {
      Machine& m = *t.m;
      int warp = t.tid / 32, lane = t.tid % 32;
      std::vector<uint64_t>& given = m.shfl[{warp, t.shflCount}];
      if (!t.shflWaiting) {
        if (given.empty()) given.assign(32, ~uint64_t{0});
        given[lane] = value(t);
        t.shflWaiting = true;
        return kWait;
      }
      t.shflWaiting = false;
      ++t.shflCount;
      uint64_t v = given[from(t) & 31];
      if (v == ~uint64_t{0}) throw std::runtime_error("PtxEval: shfl.sync from a lane that did not arrive");
      t.regs[d] = v & 0xffffffffu;
      return kNext;
    };
  }
  if (op == "stmatrix") {
    // stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 [addr], {r0, ...}:
    // lane l holds row l / 4, columns 2 (l % 4) and + 1 of matrix i in
    // register i; lane 8 i + r gives the address of row r of matrix i.
    if (guard >= 0 || ops.size() != 2) fail();
    int count = 0;
    for (const std::string& x : parts) count = x == "x1" ? 1 : x == "x2" ? 2 : x == "x4" ? 4 : count;
    if (count == 0 || std::find(parts.begin(), parts.end(), "trans") != parts.end()) fail();
    Get address = src(ops[0].substr(1, ops[0].size() - 2));
    std::vector<std::string> list = operands(ops[1].substr(1, ops[1].size() - 2));
    if (static_cast<int>(list.size()) != count) fail();
    std::vector<Get> words;
    for (const std::string& w : list) words.push_back(src(w));
    return [address, words, count](Thread& t) {
      Machine& m = *t.m;
      int warp = t.tid / 32, lane = t.tid % 32;
      Machine::StmatrixParts& p = m.stmatrix[{warp, t.stmatrixCount++}];
      p.address[lane] = address(t);
      for (const Get& w : words) p.words[lane].push_back(static_cast<uint32_t>(w(t)));
      int lanes = std::min(32, m.threads - 32 * warp);
      if (++p.arrived < lanes) return kNext;
      if (lanes != 32) throw std::runtime_error("PtxEval: stmatrix in a partial warp");
      for (int i = 0; i < count; ++i)
        for (int l = 0; l < 32; ++l)
          std::memcpy(m.at(true, p.address[8 * i + l / 4] + 4 * (l % 4), 4), &p.words[l][i], 4);
      m.stmatrix.erase({warp, t.stmatrixCount - 1});
      return kNext;
    };
  }
  if (op == "ld" || op == "st") {
    bool load = op == "ld";
    std::string space;
    int vec = 1;
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      if (parts[i] == "global" || parts[i] == "shared" || parts[i] == "param") space = parts[i];
      if (parts[i] == "v2") vec = 2;
      if (parts[i] == "v4") vec = 4;
    }
    const std::string& addrOp = load ? ops.at(1) : ops.at(0);
    const std::string& valOp = load ? ops.at(0) : ops.at(1);
    std::string inner = addrOp.substr(1, addrOp.size() - 2);
    if (space == "param") {
      size_t at = inner.rfind("_param_");
      if (!load || at == std::string::npos) fail();
      size_t index = std::stoul(inner.substr(at + 7));
      int bits = typeBits(type);
      return wrap(dst(valOp), [index, bits](const Thread& t) -> uint64_t {
        if (t.m->inputMode) return 1;  // sizes admit element 0; addresses unused
        return t.m->params.at(index) & maskBits(bits);
      });
    }
    if (space.empty()) fail();
    int64_t offset = 0;
    if (size_t plus = inner.find('+'); plus != std::string::npos) {
      offset = std::stoll(inner.substr(plus + 1));
      inner = trim(inner.substr(0, plus));
    }
    Get base = src(inner);
    int bits = typeBits(type), bytes = bits / 8;
    bool sgn = type[0] == 's', shared = space == "shared";
    std::vector<int> regs;
    std::vector<Get> vals;
    if (valOp[0] == '{') {
      for (const auto& r : operands(valOp.substr(1, valOp.size() - 2))) {
        if (load) regs.push_back(dst(r));
        else vals.push_back(src(r));
      }
    } else if (load) {
      regs.push_back(dst(valOp));
    } else {
      vals.push_back(src(valOp));
    }
    if (static_cast<int>(std::max(regs.size(), vals.size())) != vec) fail();
    std::vector<uint64_t> regMasks;
    for (int r : regs) regMasks.push_back(maskBits(regBits_[r]));
    return [=](Thread& t) {
      if (!guarded(t)) return kNext;
      uint64_t addr = base(t) + static_cast<uint64_t>(offset);
      if (shared) addr &= 0xFFFFFFFFull;
      for (int k = 0; k < vec; ++k) {
        if (load) {
          uint64_t v = 0;
          if (!shared && t.m->inputMode) {
            v = t.m->input & maskBits(bits);
          } else {
            std::memcpy(&v, t.m->at(shared, addr + k * bytes, bytes), bytes);
          }
          if (sgn) v = static_cast<uint64_t>(signExtend(v, bits));
          t.regs[regs[k]] = v & regMasks[k];
        } else {
          uint64_t v = vals[k](t) & maskBits(bits);
          if (!shared && t.m->inputMode) t.m->stores.push_back({bytes, v});
          else std::memcpy(t.m->at(shared, addr + k * bytes, bytes), &v, bytes);
        }
      }
      return kNext;
    };
  }
  if (op == "mov") {
    if (ops[0][0] == '{') {  // unpack
      auto regs = operands(ops[0].substr(1, ops[0].size() - 2));
      int lo = dst(regs[0]), hi = dst(regs[1]);
      Get v = src(ops[1]);
      int w = regBits_[lo];
      Step a = wrap(lo, v), b = wrap(hi, [v, w](const Thread& t) { return v(t) >> w; });
      return [a, b](Thread& t) {
        a(t);
        return b(t);
      };
    }
    return wrap(dst(ops[0]), src(ops[1]));
  }
  if (op == "and" || op == "or" || op == "xor") {
    Get a = src(ops[1]), b = src(ops[2]);
    if (op == "and") return wrap(dst(ops[0]), [a, b](const Thread& t) { return a(t) & b(t); });
    if (op == "or") return wrap(dst(ops[0]), [a, b](const Thread& t) { return a(t) | b(t); });
    return wrap(dst(ops[0]), [a, b](const Thread& t) { return a(t) ^ b(t); });
  }
  if (op == "not") {
    Get a = src(ops[1]);
    if (type == "pred") return wrap(dst(ops[0]), [a](const Thread& t) { return uint64_t{a(t) == 0}; });
    return wrap(dst(ops[0]), [a](const Thread& t) { return ~a(t); });
  }
  if (op == "bfe") {
    int bits = typeBits(type);
    bool sgn = type[0] == 's';
    Get a = src(ops[1]), b = src(ops[2]), c = src(ops[3]);
    return wrap(dst(ops[0]), [a, b, c, bits, sgn](const Thread& t) -> uint64_t {
      uint64_t pos = b(t) & 0xFF, len = c(t) & 0xFF;
      if (len == 0) return 0;
      uint64_t v = a(t) & maskBits(bits);
      uint64_t field = pos >= static_cast<uint64_t>(bits) ? 0 : (v >> pos) & maskBits(static_cast<int>(len));
      if (!sgn) return field;
      // Signed: the field's top bit (or a's, past the end) fills the rest.
      uint64_t signPos = std::min<uint64_t>(pos + len - 1, bits - 1);
      bool negative = pos < static_cast<uint64_t>(bits) && ((v >> signPos) & 1);
      uint64_t keep = len >= static_cast<uint64_t>(bits) ? maskBits(bits) : maskBits(static_cast<int>(len));
      return negative ? (field | (~keep & maskBits(bits))) : field;
    });
  }
  if (op == "prmt") {  // default mode: byte i of d is byte (c >> 4i) & 7 of {b, a}, msb-replicated if & 8
    Get a = src(ops[1]), b = src(ops[2]), c = src(ops[3]);
    return wrap(dst(ops[0]), [a, b, c](const Thread& t) -> uint64_t {
      uint64_t both = (a(t) & 0xFFFFFFFFu) | ((b(t) & 0xFFFFFFFFu) << 32), sel = c(t), d = 0;
      for (int i = 0; i < 4; ++i) {
        uint64_t nib = (sel >> (4 * i)) & 0xF, byte = (both >> (8 * (nib & 7))) & 0xFF;
        if (nib & 8) byte = (byte & 0x80) ? 0xFF : 0;
        d |= byte << (8 * i);
      }
      return d;
    });
  }
  if (op == "lop3") {  // bit i of d is bit (a_i << 2 | b_i << 1 | c_i) of the LUT
    Get a = src(ops[1]), b = src(ops[2]), c = src(ops[3]), lut = src(ops[4]);
    return wrap(dst(ops[0]), [a, b, c, lut](const Thread& t) -> uint64_t {
      uint64_t x = a(t), y = b(t), z = c(t), table = lut(t), d = 0;
      for (int i = 0; i < 32; ++i) {
        uint64_t index = (((x >> i) & 1) << 2) | (((y >> i) & 1) << 1) | ((z >> i) & 1);
        d |= ((table >> index) & 1) << i;
      }
      return d;
    });
  }
  if (op == "bfi") {  // d = b with bits [pos, pos + len) taken from a's low bits
    int bits = typeBits(type);
    Get a = src(ops[1]), b = src(ops[2]), c = src(ops[3]), l = src(ops[4]);
    return wrap(dst(ops[0]), [a, b, c, l, bits](const Thread& t) -> uint64_t {
      uint64_t pos = c(t) & 0xFF, len = l(t) & 0xFF, base = b(t) & maskBits(bits);
      if (len == 0 || pos >= static_cast<uint64_t>(bits)) return base;
      len = std::min<uint64_t>(len, bits - pos);
      uint64_t field = maskBits(static_cast<int>(len)) << pos;
      return (base & ~field) | ((a(t) << pos) & field);
    });
  }
  if (op == "shl" || op == "shr") {
    int bits = typeBits(type);
    bool sgn = type[0] == 's';
    Get a = src(ops[1]), b = src(ops[2]);
    if (op == "shl")
      return wrap(dst(ops[0]), [a, b, bits](const Thread& t) {
        uint64_t n = b(t);
        return n >= static_cast<uint64_t>(bits) ? 0 : (a(t) << n) & maskBits(bits);
      });
    return wrap(dst(ops[0]), [a, b, bits, sgn](const Thread& t) {
      uint64_t n = std::min<uint64_t>(b(t), bits);
      if (sgn) return static_cast<uint64_t>(signExtend(a(t), bits) >> std::min<uint64_t>(n, 63));
      return n >= static_cast<uint64_t>(bits) ? 0 : (a(t) & maskBits(bits)) >> n;
    });
  }
  Fmt ff;
  bool isFloat = floatFmt(type, ff);
  if (op == "atom" || op == "red") {
    // {atom,red}{.sem}{.scope}.global.add{.noftz}{.vN}.type of integers or
    // floats: the threads run one at a time, so a read-modify-write (atom
    // returns the old values). Other operations are not modelled.
    bool atom = op == "atom";
    if (std::find(parts.begin(), parts.end(), "global") == parts.end() ||
        std::find(parts.begin(), parts.end(), "add") == parts.end())
      fail();
    int vec = 1;
    for (const std::string& x : parts) vec = x == "v2" ? 2 : x == "v4" ? 4 : x == "v8" ? 8 : vec;
    auto list = [&](const std::string& o) {
      return o[0] == '{' ? operands(o.substr(1, o.size() - 2)) : std::vector<std::string>{o};
    };
    const std::string& addrOp = ops.at(atom ? 1 : 0);
    Get base = src(addrOp.substr(1, addrOp.size() - 2));
    std::vector<int> dsts;
    std::vector<uint64_t> dstMasks;
    std::vector<Get> vals;
    if (atom)
      for (const std::string& r : list(ops.at(0))) {
        dsts.push_back(dst(r));
        dstMasks.push_back(maskBits(regBits_[dsts.back()]));
      }
    for (const std::string& r : list(ops.at(atom ? 2 : 1))) vals.push_back(src(r));
    if (static_cast<int>(vals.size()) != vec || (atom && static_cast<int>(dsts.size()) != vec)) fail();
    int bits = typeBits(type), bytes = bits / 8;
    return [=](Thread& t) {
      if (!guarded(t)) return kNext;
      uint64_t addr = base(t);
      for (int k = 0; k < vec; ++k) {
        uint64_t old = 0, v = vals[k](t) & maskBits(bits);
        std::memcpy(&old, t.m->at(false, addr + k * bytes, bytes), bytes);
        uint64_t sum = isFloat ? roundTo(decode(old, ff) + decode(v, ff), ff, false) : (old + v) & maskBits(bits);
        std::memcpy(t.m->at(false, addr + k * bytes, bytes), &sum, bytes);
        if (atom) t.regs[dsts[k]] = old & dstMasks[k];
      }
      return kNext;
    };
  }
  if ((op == "mad" || op == "mul") && (parts[1] == "wide" || parts[1] == "lo") && !isFloat) {
    // Sources sign- or zero-extended; the destination keeps its width.
    int bits = typeBits(type);
    bool sgn = type[0] == 's';
    Get a = src(ops[1]), b = src(ops[2]);
    Get c = op == "mad" ? src(ops[3]) : Get([](const Thread&) { return uint64_t{0}; });
    return wrap(dst(ops[0]), [a, b, c, bits, sgn](const Thread& t) {
      auto ext = [&](uint64_t v) { return sgn ? static_cast<uint64_t>(signExtend(v, bits)) : v & maskBits(bits); };
      return ext(a(t)) * ext(b(t)) + c(t);
    });
  }
  if ((op == "add" || op == "sub" || op == "min" || op == "max") && !isFloat) {
    int bits = typeBits(type);
    bool sgn = type[0] == 's';
    Get a = src(ops[1]), b = src(ops[2]);
    std::string o = op;
    return wrap(dst(ops[0]), [a, b, bits, sgn, o](const Thread& t) -> uint64_t {
      uint64_t x = a(t) & maskBits(bits), y = b(t) & maskBits(bits);
      if (o == "add") return x + y;
      if (o == "sub") return x - y;
      bool less = sgn ? signExtend(x, bits) < signExtend(y, bits) : x < y;
      return (o == "min") == less ? x : y;
    });
  }
  if (op == "fma" && isFloat) {  // in long double, then rounded: exact where x * y + z is (the tests' values)
    if (parts.size() > 2 && parts[1] != "rn") fail();
    Get a = src(ops[1]), b = src(ops[2]), c = src(ops[3]);
    return wrap(dst(ops[0]), [a, b, c, ff](const Thread& t) {
      return roundTo(decode(a(t), ff) * decode(b(t), ff) + decode(c(t), ff), ff, false);
    });
  }
  if ((op == "add" || op == "sub" || op == "mul") && isFloat) {
    if (parts.size() > 2 && parts[1] != "rn") fail();
    Get a = src(ops[1]), b = src(ops[2]);
    std::string o = op;
    return wrap(dst(ops[0]), [a, b, ff, o](const Thread& t) {
      long double x = decode(a(t), ff), y = decode(b(t), ff);
      return roundTo(o == "add" ? x + y : o == "sub" ? x - y : x * y, ff, false);
    });
  }
  if (op == "setp") {
    std::string cmp = parts[1];
    Get a = src(ops[1]), b = src(ops[2]);
    if (isFloat) {
      return wrap(dst(ops[0]), [a, b, ff, cmp](const Thread& t) -> uint64_t {
        long double x = decode(a(t), ff), y = decode(b(t), ff);
        bool unord = std::isnan(x) || std::isnan(y);
        if (cmp == "nan") return unord;
        if (cmp == "num") return !unord;
        bool u = cmp.size() == 3 && cmp.back() == 'u';
        std::string c = u ? cmp.substr(0, 2) : cmp;
        if (unord) return u;
        if (c == "eq") return x == y;
        if (c == "ne") return x != y;
        if (c == "lt") return x < y;
        if (c == "le") return x <= y;
        if (c == "gt") return x > y;
        if (c == "ge") return x >= y;
        throw std::runtime_error("PtxEval: setp." + cmp);
      });
    }
    int bits = typeBits(type);
    bool sgn = type[0] == 's';
    if (cmp != "eq" && cmp != "ne" && cmp != "lt" && cmp != "le" && cmp != "gt" && cmp != "ge") fail();
    return wrap(dst(ops[0]), [a, b, bits, sgn, cmp](const Thread& t) -> uint64_t {
      uint64_t x = a(t) & maskBits(bits), y = b(t) & maskBits(bits);
      int c = sgn ? (signExtend(x, bits) < signExtend(y, bits) ? -1 : signExtend(x, bits) > signExtend(y, bits))
                  : (x < y ? -1 : x > y);
      if (cmp == "eq") return c == 0;
      if (cmp == "ne") return c != 0;
      if (cmp == "lt") return c < 0;
      if (cmp == "le") return c <= 0;
      if (cmp == "gt") return c > 0;
      return c >= 0;
    });
  }
  if (op == "selp") {
    Get a = src(ops[1]), b = src(ops[2]), p = src(ops[3]);
    return wrap(dst(ops[0]), [a, b, p](const Thread& t) { return p(t) ? a(t) : b(t); });
  }
  if (op == "cvt") {
    if (parts.size() < 3) fail();
    std::string to = parts[parts.size() - 2], from = parts.back();
    std::string rnd;
    for (size_t i = 1; i + 2 < parts.size(); ++i) {
      if (parts[i] == "ftz" || parts[i] == "sat") fail();
      rnd = parts[i];
    }
    Fmt tf, sf;
    if ((to == "f16x2" || to == "bf16x2") && from == "f32") {  // d.hi = a, d.lo = b, each rounded
      if (rnd != "rn" && rnd != "rz") fail();
      floatFmt(to.substr(0, to.size() - 2), tf);
      floatFmt(from, sf);
      Get hi = src(ops[1]), lo = src(ops[2]);
      bool rz = rnd == "rz";
      return wrap(dst(ops[0]), [hi, lo, tf, sf, rz](const Thread& t) {
        auto one = [&](uint64_t v) { return roundTo(decode(v & 0xFFFFFFFFu, sf), tf, rz) & 0xFFFF; };
        return one(hi(t)) << 16 | one(lo(t));
      });
    }
    bool toF = floatFmt(to, tf), fromF = floatFmt(from, sf);
    int tb = typeBits(to), sb = typeBits(from);
    bool toS = to[0] == 's', fromS = from[0] == 's';
    Get a = src(ops[1]);
    if (!toF && !fromF) {
      return wrap(dst(ops[0]), [a, sb, fromS](const Thread& t) {
        uint64_t v = a(t) & maskBits(sb);
        return fromS ? static_cast<uint64_t>(signExtend(v, sb)) : v;
      });
    }
    if (toF) {
      bool rz = rnd == "rz";
      if (!rnd.empty() && rnd != "rn" && rnd != "rz") fail();
      return wrap(dst(ops[0]), [a, tf, sf, fromF, sb, fromS, rz](const Thread& t) {
        long double x;
        uint64_t v = a(t) & maskBits(sb);
        if (fromF) x = decode(v, sf);
        else if (fromS) x = static_cast<long double>(signExtend(v, sb));
        else x = static_cast<long double>(v);
        return roundTo(x, tf, rz);
      });
    }
    // float -> int: round, saturate, NaN -> 0.
    if (rnd != "rni" && rnd != "rzi") fail();
    bool nearest = rnd == "rni";
    return wrap(dst(ops[0]), [a, sf, sb, tb, toS, nearest](const Thread& t) -> uint64_t {
      long double x = decode(a(t) & maskBits(sb), sf);
      if (std::isnan(x)) return 0;
      long double r = nearest ? std::nearbyint(x) : std::trunc(x);
      long double lo = toS ? -std::ldexp(1.0L, tb - 1) : 0.0L;
      long double hi = toS ? std::ldexp(1.0L, tb - 1) - 1 : std::ldexp(1.0L, tb) - 1;
      if (r <= lo) return static_cast<uint64_t>(static_cast<int64_t>(lo));
      if (r >= hi) return toS ? static_cast<uint64_t>(static_cast<int64_t>(hi)) : static_cast<uint64_t>(hi);
      return toS ? static_cast<uint64_t>(static_cast<int64_t>(r)) : static_cast<uint64_t>(r);
    });
  }
  return fail();
}

}  // namespace tessera::ptxeval
