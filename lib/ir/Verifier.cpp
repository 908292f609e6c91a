// Placeholder; replaced by the real implementation.
#include "tessera/ir/IR.h"
