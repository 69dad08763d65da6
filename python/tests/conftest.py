"""Shared fixtures: the consumer's kernel file (tests/consumer), loaded once per session from a
copy that tests may edit."""

import pathlib
import shutil

import pytest

import tessel

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
CONSUMER = SOURCE_DIR / "tests" / "consumer"


@pytest.fixture(scope="session")
def consumer_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("consumer")
    for name in ("kernels.cpp", "axpy.hpp"):
        shutil.copy(CONSUMER / name, directory / name)
    return directory


@pytest.fixture(scope="session")
def consumer(consumer_dir):
    return tessel.load(consumer_dir / "kernels.cpp")
