//===- tessera/support/Env.h - The TESSERA_* environment variables -*- C++ -*-===//
//
// Every TESSERA_* variable the library reads is a row of one table (knobs()):
// its name, the values it takes, whether it changes generated code, and a
// one-line summary. Reads go through the typed accessors below, which check
// the value against the row: a value they cannot take is a tessera::Error
// naming the variable, the value and what is accepted, never silently
// ignored. Variables that change generated code are folded into every
// kernel cache key by codeKnobs(), so that list cannot drift from the
// knobs that exist.
//
//   if (auto cap = env::integer("TESSERA_MAXNREG")) ...   // checked range
//   bool interpret = env::flag("TESSERA_INTERPRET");
//
// Values are read when asked (a test may change them), not cached.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::env {

enum class Kind {
  Flag,     ///< 0/1 (also false/true, no/yes, off/on); unset or empty: off
  Integer,  ///< a decimal integer in [min, max]
  Choice,   ///< one word of `choices` (separated by '|')
  List,     ///< comma-separated words of `choices`
  Text,     ///< a path or any text
};

struct Knob {
  const char* name;
  Kind kind;
  bool changesCode;     ///< part of every compiled kernel's cache key
  int64_t min, max;     ///< Integer
  const char* choices;  ///< Choice and List: "a|b|c"
  const char* summary;  ///< one line, as docs/user-guide.md lists it
};

/// All knobs, in the order the user guide lists them.
const std::vector<Knob>& knobs();
/// The knob called `name`; nullptr for a name the table lacks.
const Knob* find(std::string_view name);

/// The variable's text when it is set and not empty.
std::optional<std::string> text(const char* name);
/// A Flag knob, `dflt` when unset or empty; throws tessera::Error for a
/// value that is not a flag.
bool flag(const char* name, bool dflt = false);
/// An Integer knob (nullopt when unset or empty); throws for junk or a
/// value outside the knob's range.
std::optional<int64_t> integer(const char* name);
/// A Choice knob's word, or `dflt` when unset or empty; throws for another word.
std::string choice(const char* name, const std::string& dflt);
/// A List knob's words; an unknown word is dropped with a warning (printed
/// once): lists only ask for diagnostics.
std::vector<std::string> list(const char* name);

/// "NAME=value" lines of every set knob that changes generated code, in
/// table order (empty when none is set): part of every kernel cache key.
std::string codeKnobs();

/// Prints "tessera: warning: MESSAGE" on stderr the first time `key` is
/// warned about in this process.
void warnOnce(const std::string& key, const std::string& message);

}  // namespace tessera::env
