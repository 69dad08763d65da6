"""Times one GPU call of a bench after evicting L2, the way every Python bench here does."""

import torch


class FlushedTimer:
    """Calling it with a function runs the function once between two CUDA events, after a read of a
    buffer larger than L2, and returns the seconds between the events. The flush reads: one that
    writes (zero_) leaves L2 full of dirty lines, whose write-back (about 8 us on an H200) the next
    kernel would pay for, the short ones most."""

    def __init__(self, flush_bytes=512 << 20):  # larger than the H200's 50 MB L2
        self.flush = torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def __call__(self, run):
        self.flush.max()
        self.start.record()
        run()
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) * 1e-3
