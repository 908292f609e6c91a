from servelib.ops import activation, configs, kv_cache, paged_attention, quant, rotary

__all__ = ["activation", "configs", "kv_cache", "paged_attention", "quant", "rotary"]
