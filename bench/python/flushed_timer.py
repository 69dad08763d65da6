"""Times one GPU call of a bench after evicting L2, the way every Python bench here does, or a sequence of
calls queued back to back after one eviction, the way an inference engine runs a model's layers."""

import sys
import time

import torch


class FlushedTimer:
    """Calling it with a function runs the function once between two CUDA events, after a read of a
    buffer larger than L2, and returns the seconds between the events. The flush reads: one that
    writes (zero_) leaves L2 full of dirty lines, whose write-back (about 8 us on an H200) the next
    kernel would pay for, the short ones most.

    Calling it with a list of functions flushes once, runs them in order between the two events and
    returns the seconds per function. Before the first event the GPU sleeps (torch.cuda._sleep) while
    the CPU queues every call, so that the calls run back to back as a CUDA graph would run them, and
    not each at the pace of its launch from Python. A sequence whose queueing outlasted the sleep timed
    the CPU: it is timed again with a longer sleep (said once on stderr), and never kept."""

    def __init__(self, flush_bytes=512 << 20, queue_seconds_per_call=200e-6):
        self.flush = torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")  # over the H200's 50 MB L2
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.slept = torch.cuda.Event(enable_timing=True)
        # Over ten times a launch from Python (8-17 us on an H200, docs/python.md), for the calls' own work.
        self.queue_seconds_per_call = queue_seconds_per_call
        self.cycles_per_second = None  # the sleep's clock, measured at the first sequence
        self.warned = False

    def _calibrate(self):
        # The sleep counts SM clock cycles; timing it beats assuming a clock. Fastest of a few, as a
        # clock still ramping up would make the later sleeps shorter than intended.
        torch.cuda._sleep(1000)
        cycles = 1 << 20
        rates = []
        for _ in range(3):
            self.slept.record()
            torch.cuda._sleep(cycles)
            self.start.record()
            self.start.synchronize()
            rates.append(cycles / (self.slept.elapsed_time(self.start) * 1e-3))
        self.cycles_per_second = max(rates)

    def __call__(self, run):
        if callable(run):
            self.flush.max()
            self.start.record()
            run()
            self.end.record()
            self.end.synchronize()
            return self.start.elapsed_time(self.end) * 1e-3
        runs = list(run)
        if len(runs) == 1:
            return self(runs[0])
        if self.cycles_per_second is None:
            self._calibrate()
        for _ in range(3):
            seconds, queueing, slept = self._sequence(runs)
            if queueing <= slept:
                return seconds
            if not self.warned:
                print(f"FlushedTimer: queueing {len(runs)} calls took {queueing * 1e6:.0f} us of CPU time, longer "
                      f"than the GPU's sleep of {slept * 1e6:.0f} us: timed again with longer sleeps (said once)",
                      file=sys.stderr, flush=True)
                self.warned = True
            # Twice what this sequence needed, bounded: a call that synchronizes would outlast any sleep.
            self.queue_seconds_per_call = min(max(self.queue_seconds_per_call, 2 * queueing / len(runs)), 5e-3)
        raise RuntimeError(f"FlushedTimer: the CPU could not queue {len(runs)} calls ahead of the GPU in three tries; "
                           "a call that waits for the GPU cannot be timed in a sequence")

    def _sequence(self, runs):
        """The seconds per call of one timed sequence, the CPU's seconds queueing it, and the sleep's."""
        self.flush.max()
        self.slept.record()
        torch.cuda._sleep(int(len(runs) * self.queue_seconds_per_call * self.cycles_per_second))
        # From here to the end event's record, the CPU must stay ahead of the GPU, which is asleep.
        queueing = time.perf_counter()
        self.start.record()
        for call in runs:
            call()
        self.end.record()
        queueing = time.perf_counter() - queueing
        self.end.synchronize()
        slept = self.slept.elapsed_time(self.start) * 1e-3
        return self.start.elapsed_time(self.end) * 1e-3 / len(runs), queueing, slept
