"""Writes the keys and values of new tokens into the paged KV cache.

`slot_mapping[t]` is the flat slot (page * PAGE_SIZE + offset) of token t,
or -1 for padding tokens that must not be written."""

import torch

from servelib.triton_utils import tl, triton


@triton.jit
def _reshape_and_cache_kernel(
    key_ptr,  # [num_tokens, num_kv_heads, head_size]
    value_ptr,
    key_cache_ptr,  # [num_pages, PAGE_SIZE, num_kv_heads, head_size]
    value_cache_ptr,
    slot_mapping_ptr,  # [num_tokens]
    k_scale_ptr,  # scalar fp32, only read when KV_FP8
    v_scale_ptr,
    key_stride,
    value_stride,
    page_stride,
    slot_stride,
    num_kv_heads,
    head_size,
    PAGE_SIZE: tl.constexpr,
    BLOCK: tl.constexpr,  # >= num_kv_heads * head_size
    KV_FP8: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_mapping_ptr + token).to(tl.int64)
    if slot < 0:
        return
    page = slot // PAGE_SIZE
    offset = slot % PAGE_SIZE
    elems = tl.arange(0, BLOCK)
    ok = elems < num_kv_heads * head_size
    k = tl.load(key_ptr + token * key_stride + elems, mask=ok, other=0.0)
    v = tl.load(value_ptr + token * value_stride + elems, mask=ok, other=0.0)
    dst = page * page_stride + offset * slot_stride + elems
    if KV_FP8:
        k = (k.to(tl.float32) / tl.load(k_scale_ptr)).to(key_cache_ptr.dtype.element_ty)
        v = (v.to(tl.float32) / tl.load(v_scale_ptr)).to(value_cache_ptr.dtype.element_ty)
    tl.store(key_cache_ptr + dst, k, mask=ok)
    tl.store(value_cache_ptr + dst, v, mask=ok)


@triton.jit
def _copy_pages_kernel(cache_ptr, mapping_ptr, page_numel, BLOCK: tl.constexpr):
    """Copy-on-write of shared prefix pages: mapping is [n, 2] (src, dst)."""
    pair = tl.program_id(0)
    chunk = tl.program_id(1)
    src = tl.load(mapping_ptr + 2 * pair).to(tl.int64)
    dst = tl.load(mapping_ptr + 2 * pair + 1).to(tl.int64)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    ok = offs < page_numel
    data = tl.load(cache_ptr + src * page_numel + offs, mask=ok)
    tl.store(cache_ptr + dst * page_numel + offs, data, mask=ok)


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, k_scale=None, v_scale=None):
    num_tokens, num_kv_heads, head_size = key.shape
    page_size = key_cache.shape[1]
    kv_fp8 = key_cache.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
    if k_scale is None:
        k_scale = torch.ones(1, dtype=torch.float32, device=key.device)
        v_scale = k_scale
    _reshape_and_cache_kernel[(num_tokens, )](
        key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale, key.stride(0), value.stride(0),
        key_cache.stride(0), key_cache.stride(1), num_kv_heads, head_size, PAGE_SIZE=page_size,
        BLOCK=triton.next_power_of_2(num_kv_heads * head_size), KV_FP8=kv_fp8)


def copy_pages(cache, mapping):
    page_numel = cache[0].numel()
    _copy_pages_kernel[(mapping.shape[0], triton.cdiv(page_numel, 4096))](cache, mapping, page_numel, BLOCK=4096)
