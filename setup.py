"""Builds the extension baton._baton with this repository's CMake.

The build tree is build/pip (kept: a second install rebuilds only what
changed); CMake is told which interpreter is installing, and where pip's
pybind11 is, where it has one.
"""

import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent.resolve()


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = ROOT / "build" / "pip"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DBATON_BUILD_TESTS=OFF", "-DBATON_BUILD_BENCH=OFF",
                     f"-DPython_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        try:
            import pybind11

            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass  # Debian's pybind11-dev: CMake finds it
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "_baton"])
        built = list((build / "python" / "baton").glob("_baton*.so"))
        if not built:
            sys.exit("setup.py: CMake built no baton/_baton*.so: were Python's headers and "
                     "pybind11 found? (see the configure output above)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="baton",
    version="0.1.0",
    description="Spreads AI-training work over every GPU, CPU and OpenCL device of a machine",
    package_dir={"": "python"},
    packages=["baton", "baton.torch", "baton.torch.distributed"],
    package_data={"baton": ["*.pyi", "py.typed"], "baton.torch": ["*.pyi"],
                  "baton.torch.distributed": ["*.pyi"]},
    ext_modules=[Extension("baton._baton", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
)
