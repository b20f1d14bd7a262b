"""A stand-in for SGLang's CPU kernel package `sgl_kernel`, for headroom's test peer only.

SGLang's CPU engine imports the CPU build of `sgl_kernel`, which no package registry reachable
here serves (PyPI's `sglang-kernel` is CUDA-only and fails with libcuda.so.1 missing). This module
is placed first on PYTHONPATH by testpeers. It implements one function in plain torch,
`assign_req_to_token_pool_cpu`, which every prefill and decode step calls; it is the CPU twin of
SGLang's Triton kernel `assign_req_to_token_pool` (sglang/srt/mem_cache/allocation.py). Every
other name imports, and raises NotImplementedError when called: in headroom's runs only
speculative decoding and other unused paths import them. The scheduler, the HTTP server and the
metrics are SGLang's own.
"""


def assign_req_to_token_pool_cpu(
    req_pool_indices, req_to_token, start_offset, end_offset, out_cache_loc, pool_len
):
    # Request i's new slots [start_i, end_i) take the next end_i - start_i entries of
    # out_cache_loc, in batch order.
    taken = 0
    for i in range(req_pool_indices.shape[0]):
        start, end = int(start_offset[i]), int(end_offset[i])
        row = int(req_pool_indices[i])
        req_to_token[row, start:end] = out_cache_loc[taken : taken + end - start]
        taken += end - start


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def missing(*args, **kwargs):
        raise NotImplementedError(
            f"sgl_kernel.{name} is not in headroom's test stand-in (scripts/peers/sgl_kernel_standin.py)"
        )

    missing.__name__ = name
    return missing
