"""Kernels of an LLM serving engine: paged KV-cache attention for decoding,
cache writes, rotary embeddings, gated activations, quantization, MoE and
sampling helpers.  Kernels import triton through `servelib.triton_utils` or
directly, as the engine's modules do."""

from servelib.platform import current_platform

__all__ = ["current_platform"]
