"""Logits processing and sampling on the GPU: repetition / frequency /
presence penalties, and Gumbel-max sampling with a per-request seed."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import torch
import triton
import triton.language as tl

if TYPE_CHECKING:
    from servelib.ops.paged_attention import DecodeMetadata

logger = logging.getLogger(__name__)


@triton.jit
def _apply_penalties_kernel(
    logits_ptr,  # [num_seqs, vocab], fp32, updated in place
    logits_stride,
    output_counts_ptr,  # [num_seqs, vocab], int32: times each token was generated
    counts_stride,
    prompt_mask_ptr,  # [num_seqs, vocab], bool: token occurs in the prompt
    prompt_stride,
    repetition_ptr,  # [num_seqs]
    frequency_ptr,
    presence_ptr,
    vocab_size,
    BLOCK: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ok = cols < vocab_size
    rep = tl.load(repetition_ptr + seq)
    freq = tl.load(frequency_ptr + seq)
    pres = tl.load(presence_ptr + seq)
    logits = tl.load(logits_ptr + seq * logits_stride + cols, mask=ok, other=0.0)
    counts = tl.load(output_counts_ptr + seq * counts_stride + cols, mask=ok, other=0)
    in_prompt = tl.load(prompt_mask_ptr + seq * prompt_stride + cols, mask=ok, other=0)
    seen = (counts > 0) | (in_prompt != 0)
    # Repetition penalty divides positive logits and multiplies negative ones.
    penalized = tl.where(logits > 0, logits / rep, logits * rep)
    logits = tl.where(seen, penalized, logits)
    logits = logits - freq * counts.to(tl.float32) - pres * (counts > 0).to(tl.float32)
    tl.store(logits_ptr + seq * logits_stride + cols, logits, mask=ok)


@triton.jit
def _gumbel_sample_kernel(
    sampled_ptr,  # [num_seqs], int64
    logits_ptr,  # [num_seqs, vocab]
    logits_stride,
    temperature_ptr,  # [num_seqs]; 0 means greedy
    seeds_ptr,  # [num_seqs], int64
    step,
    vocab_size,
    BLOCK: tl.constexpr,
):
    seq = tl.program_id(0).to(tl.int64)
    temp = tl.load(temperature_ptr + seq)
    seed = tl.load(seeds_ptr + seq)
    greedy = temp == 0.0
    inv_temp = tl.where(greedy, 1.0, 1.0 / temp)
    best_val = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, vocab_size, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        ok = cols < vocab_size
        x = tl.load(logits_ptr + seq * logits_stride + cols, mask=ok, other=float("-inf")).to(tl.float32)
        # Gumbel-max: argmax(x / T - log(-log(u))) samples softmax(x / T).
        u = tl.rand(seed, step * vocab_size + cols)
        g = -tl.log(-tl.log(tl.maximum(u, 1e-20)))
        score = tl.where(greedy, x, x * inv_temp + g)
        score = tl.where(ok, score, float("-inf"))
        better = score > best_val
        best_val = tl.where(better, score, best_val)
        best_idx = tl.where(better, cols, best_idx)
    _, lane = tl.max(best_val, axis=0, return_indices=True)
    winner = tl.sum(tl.where(tl.arange(0, BLOCK) == lane, best_idx, 0), axis=0)
    tl.store(sampled_ptr + seq, winner.to(tl.int64))


def apply_penalties(logits, output_counts, prompt_mask, repetition, frequency, presence, block=8192):
    num_seqs, vocab = logits.shape
    _apply_penalties_kernel[(num_seqs, triton.cdiv(vocab, block))](
        logits, logits.stride(0), output_counts, output_counts.stride(0), prompt_mask, prompt_mask.stride(0),
        repetition, frequency, presence, vocab, BLOCK=block)
    return logits


def gumbel_sample(logits: torch.Tensor, temperature: torch.Tensor, seeds: torch.Tensor, step: int,
                  meta: DecodeMetadata | None = None) -> torch.Tensor:
    num_seqs, vocab = logits.shape
    out = torch.empty(num_seqs, dtype=torch.int64, device=logits.device)
    _gumbel_sample_kernel[(num_seqs, )](out, logits, logits.stride(0), temperature, seeds, step, vocab, BLOCK=1024,
                                        num_warps=8)
    return out
