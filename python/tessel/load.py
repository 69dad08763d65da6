"""tessel.load: a user's C++ kernel file compiled into a library of kernels, once.

The compiled library is cached under <tessel cache>/host, keyed by the file's path, the compiler
and its flags; the entry records every file the compile read (the compiler's dependency list, tessel's
own headers included) with its SHA-256, and is used only while all of them still match: editing the
file or any header it includes compiles it again.
"""

import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from . import _tessel
from .kernels import Library

_loaded = {}  # library path -> Library: a library is opened once per process


def _build_config():
    package = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(package, "_build_config.json")) as f:
        text = f.read().replace("{package}", package)
    return json.loads(text)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _dependencies(depfile):
    """The files a make-style dependency file lists (the compiler's -MD output)."""
    with open(depfile) as f:
        text = f.read().replace("\\\n", " ")
    targets_and_sources = text.split(":", 1)[1]
    paths, current = [], ""
    for token in targets_and_sources.split():
        if token.endswith("\\"):  # an escaped space inside a path
            current += token[:-1] + " "
            continue
        paths.append(os.path.abspath(current + token))
        current = ""
    return sorted(set(paths))


def _up_to_date(entry_dir):
    try:
        with open(os.path.join(entry_dir, "entry.json")) as f:
            entry = json.load(f)
        library = os.path.join(entry_dir, entry["library"])
        if not os.path.exists(library):
            return None
        for path, digest in entry["files"].items():
            if not os.path.exists(path) or _sha256(path) != digest:
                return None
        return library
    except (OSError, ValueError, KeyError):
        return None


def _compile(source, command_prefix, config, entry_dir, verbose):
    os.makedirs(entry_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=entry_dir) as work:
        output = os.path.join(work, "kernels.so")
        depfile = os.path.join(work, "kernels.d")
        command = command_prefix + [source, "-o", output, "-MD", "-MF", depfile] + config["libraries"]
        command += [f"-Wl,-rpath,{d}" for d in config["runtime_dirs"]]
        print(f"tessel: compiling {os.path.basename(source)} (its host code; cached until it or a header it "
              f"includes changes)", file=sys.stderr, flush=True)
        if verbose:
            print("tessel: " + shlex.join(command), file=sys.stderr, flush=True)
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise _tessel.Error(f"compiling {source} failed (exit code {done.returncode}):\n{done.stderr.strip()}")
        files = {path: _sha256(path) for path in _dependencies(depfile)}
        digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
        # A new name for new contents: a process that opened an older library keeps it.
        library = f"kernels-{digest}.so"
        os.replace(output, os.path.join(entry_dir, library))
        entry = os.path.join(work, "entry.json")
        with open(entry, "w") as f:
            json.dump({"library": library, "files": files}, f, indent=1)
        os.replace(entry, os.path.join(entry_dir, "entry.json"))
        print(f"tessel: compiled {os.path.basename(source)} in {time.monotonic() - start:.1f} s", file=sys.stderr,
              flush=True)
    return os.path.join(entry_dir, library)


def load(path, *, extra_cflags=(), verbose=False):
    """Compiles the C++ file `path`, whose TESSEL_KERNELS block registers its kernels, into a
    library over this tessel, and returns its kernels as a Library. The compile is cached: a
    second load, in this process or another, costs a few hashes unless a file it read changed."""
    source = os.path.abspath(path)
    if not os.path.isfile(source):
        raise _tessel.Error(f"tessel.load: no file {path}")
    config = _build_config()
    command_prefix = ([config["compiler"]] + config["flags"] + [f'-DTESSEL_VERSION="{_tessel.__version__}"']
                      + [f"-I{d}" for d in config["include_dirs"]] + list(extra_cflags))
    key = hashlib.sha256(json.dumps([source, command_prefix, config["libraries"]]).encode()).hexdigest()[:24]
    entry_dir = os.path.join(_tessel.default_cache_dir(), "host", key)
    library = _up_to_date(entry_dir) or _compile(source, command_prefix, config, entry_dir, verbose)
    if library not in _loaded:
        _loaded[library] = Library(_tessel.KernelLibrary.open(library))
    return _loaded[library]
