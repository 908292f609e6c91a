"""Host-side tensor descriptors (triton.tools.tensor_descriptor): a tensor,
its shape and strides, and the block its loads and stores move. Passed to a
kernel whose parameter is used as a tensor descriptor (desc.load, desc.store).
"""


class TensorDescriptor:
    def __init__(self, base, shape, strides, block_shape, padding="zero", round_f32_to_tf32=False):
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.block_shape = list(block_shape)
        self.padding = padding
        self.round_f32_to_tf32 = round_f32_to_tf32  # loads round fp32 to tf32 (nearest even)
        if self.strides and self.strides[-1] != 1:
            raise ValueError("TensorDescriptor: the last dimension must be contiguous (stride 1), got strides %s" %
                             (self.strides,))
        if padding not in ("zero", "nan"):
            raise ValueError("TensorDescriptor: padding must be 'zero' or 'nan', got %r" % (padding,))

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero", round_f32_to_tf32=False):
        if hasattr(tensor, "stride"):
            strides = tuple(tensor.stride())
        else:  # a NumPy array: strides in bytes
            strides = tuple(s // tensor.itemsize for s in tensor.strides)
        return TensorDescriptor(tensor, tuple(tensor.shape), strides, block_shape, padding, round_f32_to_tf32)

    def __repr__(self):
        return "TensorDescriptor(shape=%s, strides=%s, block_shape=%s)" % (self.shape, self.strides, self.block_shape)
