#!/usr/bin/env python3
"""Instructions per tensor-core instruction in the main loop of a kernel, from its SASS.

usage: bench/main_loop_sass.py KERNEL.cubin [...]

Disassembles each cubin (nvdisasm, else cuobjdump -sass), finds the innermost loop with the most
tensor-core instructions (HMMA, HGMMA), and prints for it:
  - its size: every instruction between its head and its back edge, the masked edge paths included;
  - its hot path: the path through the loop body that a whole tile takes in the middle of the
    matrix, choosing at each branch the way with the most tensor-core instructions, unmasked copies
    and loads, and the fewest masked copies (a cp.async that zero-fills, LDGSTS.ZFILL, belongs to a
    tile on the edge of the matrix);
  - the instruction mix of the hot path.
"""
import collections
import re
import shutil
import subprocess
import sys

TENSOR = ("HMMA", "HGMMA", "IMMA", "UTCMMA")
LABEL = re.compile(r"^(\.L_x_\d+):")
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
TARGET = re.compile(r"`?\((\.L_x_\d+)\)")


def disassemble(path):
    for tool, args in (("nvdisasm", ["-c"]), ("cuobjdump", ["-sass"])):
        if shutil.which(tool):
            return subprocess.run([tool, *args, path], check=True, capture_output=True, text=True).stdout
    sys.exit("main_loop_sass.py: neither nvdisasm nor cuobjdump is on PATH")


def opcode(text):
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def is_tensor(text):
    return opcode(text).split(".")[0] in TENSOR


class Function:
    def __init__(self, lines):
        self.code, self.labels = [], {}
        for line in lines:
            m = LABEL.match(line.strip())
            if m:
                self.labels[m.group(1)] = len(self.code)
                continue
            m = INSTRUCTION.search(line)
            if m:
                self.code.append(m.group(2))

    def branch(self, i):
        """The target index of instruction i if it is a branch, and whether it may fall through."""
        text = self.code[i]
        if opcode(text) != "BRA":
            return None, opcode(text) not in ("EXIT", "RET")
        m = TARGET.search(text)
        target = self.labels.get(m.group(1)) if m else None
        return target, text.startswith("@")

    def loops(self):
        """(head, back edge) of every loop, innermost first."""
        found = []
        for i in range(len(self.code)):
            target, _ = self.branch(i)
            if target is not None and target <= i:
                found.append((target, i))
        return sorted(found, key=lambda loop: loop[1] - loop[0])

    def hot_path(self, head, back):
        """The instructions of the best path from head to the back edge, by the score above."""
        starts = sorted({head, back + 1} | {t for t in self.labels.values() if head < t <= back}
                        | {i + 1 for i in range(head, back) if self.branch(i)[0] is not None})
        blocks = [(s, e) for s, e in zip(starts, starts[1:])]
        by_start = {s: (s, e) for s, e in blocks}
        memo = {}

        def score(path):
            texts = [self.code[i] for s, e in path for i in range(s, e)]
            masked = sum("ZFILL" in t for t in texts)
            copies = sum(opcode(t).startswith("LDGSTS") for t in texts) - masked
            loads = sum(opcode(t).split(".")[0] in ("LDSM", "LDS", "LDG") for t in texts)
            return (sum(is_tensor(t) for t in texts), copies, loads, -masked, -len(texts))

        def best(start):
            if start in memo:
                return memo[start]
            s, e = by_start[start]
            if e - 1 == back:
                memo[start] = [(s, e)]
                return memo[start]
            target, falls = self.branch(e - 1)
            options = []
            if falls and e in by_start:
                options.append(best(e))
            if target is not None and head < target <= back and target in by_start:
                options.append(best(target))
            memo[start] = [(s, e)] + max(options, key=score) if options else [(s, e)]
            return memo[start]

        return [self.code[i] for s, e in best(head) for i in range(s, e)]


def report(path):
    sass = disassemble(path)
    functions = re.split(r"\n\s*\.text\.\S+:\n|\n\s*Function : \S+\n", sass)
    best = None
    for lines in functions:
        f = Function(lines.splitlines())
        for head, back in f.loops():
            tensor = sum(is_tensor(t) for t in f.code[head:back + 1])
            if tensor and (best is None or tensor > best[3]):
                best = (f, head, back, tensor)
    if best is None:
        print(f"{path}: no loop with tensor-core instructions")
        return
    f, head, back, tensor = best
    whole = back + 1 - head
    hot = f.hot_path(head, back)
    hot_tensor = sum(is_tensor(t) for t in hot)
    mix = collections.Counter(opcode(t).split(".")[0] for t in hot)
    print(f"{path}:")
    print(f"  main loop: {whole} instructions, {tensor} tensor-core: {whole / tensor:.2f} per tensor-core instruction")
    print(f"  hot path (a whole tile): {len(hot)} instructions, {hot_tensor} tensor-core: "
          f"{len(hot) / max(hot_tensor, 1):.2f} per tensor-core instruction")
    print("  hot path mix: " + ", ".join(f"{name} {count}" for name, count in mix.most_common()))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for cubin in sys.argv[1:]:
        report(cubin)
