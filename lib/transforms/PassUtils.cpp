//===- PassUtils.cpp - Helpers shared by the Tile IR passes --------------===//
//
// Option parsing declared in PassDetail.h. Kept apart from the registry so
// each pass can be linked and tested on its own.
//
//===----------------------------------------------------------------------===//

#include <sstream>

#include "tessera/Error.h"
#include "transforms/PassDetail.h"

namespace tessera::transforms {

bool boolOption(const PassOptions& options, const std::string& pass, const std::string& name, bool dflt) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  throw Error("pass '" + pass + "': option '" + name + "' expects true or false, got '" + it->second + "'");
}

int64_t intOption(const PassOptions& options, const std::string& pass, const std::string& name,
                  int64_t dflt) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  std::istringstream in(it->second);
  int64_t value = 0;
  if (!(in >> value) || !in.eof())
    throw Error("pass '" + pass + "': option '" + name + "' expects an integer, got '" + it->second + "'");
  return value;
}

}  // namespace tessera::transforms
