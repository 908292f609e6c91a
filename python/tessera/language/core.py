"""What a kernel file touches when Python imports it: dtypes, constexpr,
type objects and the tl functions as objects.

Kernels are compiled from their source by Tessera's C++ frontend, so nothing
here runs inside a kernel. These names exist so that module-level code
(annotations, defaults, `tl.constexpr(...)` globals, dtype tables, helper
decorators) runs under CPython exactly as under Triton; calling a tl
function from Python raises, as Triton does outside a kernel.
"""


class constexpr:
    """A compile-time value: `BLOCK: tl.constexpr` as an annotation, or
    `tl.constexpr(128)` as a value (its .value is the plain value)."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return self.value == _value(other)

    def __ne__(self, other):
        return self.value != _value(other)

    def __lt__(self, other):
        return self.value < _value(other)

    def __le__(self, other):
        return self.value <= _value(other)

    def __gt__(self, other):
        return self.value > _value(other)

    def __ge__(self, other):
        return self.value >= _value(other)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)


def _value(x):
    return x.value if isinstance(x, constexpr) else x


def _binary(op, reflected=False):
    def method(self, other):
        a, b = self.value, _value(other)
        return constexpr(op(b, a) if reflected else op(a, b))
    return method


def _unary(op):
    return lambda self: constexpr(op(self.value))


import operator as _op

for _name, _fn in (("add", _op.add), ("sub", _op.sub), ("mul", _op.mul), ("truediv", _op.truediv),
                   ("floordiv", _op.floordiv), ("mod", _op.mod), ("pow", _op.pow), ("and", _op.and_),
                   ("or", _op.or_), ("xor", _op.xor), ("lshift", _op.lshift), ("rshift", _op.rshift)):
    setattr(constexpr, "__%s__" % _name, _binary(_fn))
    setattr(constexpr, "__r%s__" % _name, _binary(_fn, True))
for _name, _fn in (("neg", _op.neg), ("pos", _op.pos), ("invert", _op.invert), ("abs", abs)):
    setattr(constexpr, "__%s__" % _name, _unary(_fn))


class dtype:
    """A Triton scalar type. str() gives Triton's short name ("fp32"),
    which is how a dtype passes to a kernel's constexpr parameter."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    _BITS = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
             "uint32": 32, "uint64": 64, "fp8e4b15": 8, "fp8e4nv": 8, "fp8e4b8": 8, "fp8e5": 8, "fp8e5b16": 8,
             "fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64, "void": 0}
    _SHORT = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
              "uint16": "u16", "uint32": "u32", "uint64": "u64"}

    def __init__(self, name):
        if name not in self._BITS:
            raise ValueError("unknown dtype %r" % (name,))
        self.name = name
        self.primitive_bitwidth = self._BITS[name]

    def __str__(self):
        return self._SHORT.get(self.name, self.name)

    def __repr__(self):
        return "triton.language." + _PUBLIC.get(self.name, self.name)

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def is_floating(self):
        return self.name in self.FP_TYPES

    def is_int(self):
        return self.name in self.SINT_TYPES or self.name in self.UINT_TYPES

    def is_int_signed(self):
        return self.name in self.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in self.UINT_TYPES

    def is_bool(self):
        return self.name == "int1"

    def is_fp8(self):
        return self.name.startswith("fp8")

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    def to_ir(self, builder):
        raise RuntimeError("tessera: dtypes lower inside the compiler only")

    @property
    def scalar(self):
        return self


class pointer_type(dtype):
    def __init__(self, element_ty, address_space=1, const=False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = "pointer<%s>" % element_ty
        self.primitive_bitwidth = 64

    def __str__(self):
        return "*" + str(self.element_ty)

    def is_ptr(self):
        return True


class block_type(dtype):
    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = tuple(shape)
        self.name = "<%s, %s>" % (list(self.shape), element_ty)
        self.primitive_bitwidth = element_ty.primitive_bitwidth

    def is_block(self):
        return True


_PUBLIC = {"fp8e4b15": "float8e4b15", "fp8e4nv": "float8e4nv", "fp8e4b8": "float8e4b8", "fp8e5": "float8e5",
           "fp8e5b16": "float8e5b16", "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}

void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e5 = dtype("fp8e5")
float8e5b16 = dtype("fp8e5b16")
float8e4nv = dtype("fp8e4nv")
float8e4b8 = dtype("fp8e4b8")
float8e4b15 = dtype("fp8e4b15")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
pi32_t = pointer_type(int32)


class tensor:
    """The type of values inside kernels (an annotation under Python)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tessera: tl.tensor values exist only inside a @triton.jit kernel")


class tensor_descriptor(tensor):
    pass


class tensor_descriptor_type:
    def __init__(self, block_type, shape_type=None, strides_type=None):
        self.block_type = block_type
        self.shape_type = shape_type
        self.strides_type = strides_type


class tuple_type:
    def __init__(self, types, fields=None):
        self.types = list(types)
        self.fields = fields


class const:
    pass


class slice:  # noqa: A001 (Triton's name)
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


class static_range:
    """Only meaningful inside a kernel: `for i in tl.static_range(4)`."""

    def __init__(self, arg1, arg2=None, step=None):
        self.args = (arg1, arg2, step)


class range:  # noqa: A001
    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False, disable_licm=False):
        self.args = (arg1, arg2, step)


class condition:
    def __init__(self, arg1, disable_licm=False):
        self.arg = arg1


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


TRITON_MAX_TENSOR_NUMEL = 1048576


class builtin:
    """A tl function as an object: it exists for Python, and compiles only
    inside a kernel (Triton raises the same way when one is called outside)."""

    def __init__(self, qualname):
        self.__name__ = qualname.rpartition(".")[2]
        self.__qualname__ = qualname
        self.__module__ = "triton.language"

    def __call__(self, *args, **kwargs):
        raise ValueError("Did you forget to add @triton.jit ? (`_semantic` argument must be provided outside of "
                         "JIT functions.) [%s, called from Python; Tessera compiles it inside kernels only]"
                         % self.__qualname__)

    def __repr__(self):
        return "<triton.language function %s>" % self.__qualname__


def _aggregate(cls):
    """tl.core._aggregate: the spelling of triton.aggregate before 3.8."""
    cls.__triton_aggregate__ = True
    return cls


aggregate = _aggregate


def str_to_ty(name, c=None):
    if name.startswith("*"):
        return pointer_type(str_to_ty(name[1:]))
    long = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
            "u16": "uint16", "u32": "uint32", "u64": "uint64"}
    return dtype(long.get(name, name))


FUNCTIONS = """
abs add advance arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas atomic_load atomic_max
atomic_min atomic_or atomic_poll atomic_store atomic_xchg atomic_xor bitonic_merge broadcast broadcast_to cast cat cdiv ceil clamp cos
cumprod cumsum debug_barrier device_assert device_print div_rn dot dot_scaled erf exp exp2 expand_dims fdiv flip
floor fma full gather histogram inline_asm_elementwise interleave join load load_tensor_descriptor log log2
make_block_ptr make_tensor_descriptor map_elementwise max max_constancy max_contiguous maximum min minimum mul
multiple_of num_programs pair_uniform_to_normal permute philox philox_impl program_id rand rand4x randint
randint4x randn randn4x ravel reduce reduce_or reshape rsqrt sigmoid sin softmax sort split sqrt sqrt_rn squeeze
aggregate_replace static_assert static_print store store_tensor_descriptor sub sum swizzle2d topk trans umulhi unsqueeze
uint_to_uniform_float view where xor_sum zeros zeros_like expect_zero to_tensor
""".split()

MATH = "abs ceil cos div_rn erf exp exp2 fdiv floor fma log log2 rsqrt sin sqrt sqrt_rn umulhi".split()
