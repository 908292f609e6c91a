// Placeholder so the runtime layer has a source file; replaced by the driver code.
namespace tessera::runtime {}
