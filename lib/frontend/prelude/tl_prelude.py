# Tessera prelude: Triton-language library functions (tl.sum, tl.softmax, ...).
